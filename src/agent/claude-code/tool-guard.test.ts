import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HookCallback, HookInput } from '@anthropic-ai/claude-agent-sdk';
import { SecretMasker } from '../../secrets.js';
import {
  checkGlobPattern,
  createToolGuardHooks,
  maskDeep,
  reviewToolCall,
  withCredentialsUnset,
  type ToolGuardOptions,
} from './tool-guard.js';

describe('Claude Code tool guard', () => {
  let base: string;
  let ws: string;
  let options: ToolGuardOptions;

  beforeAll(() => {
    base = realpathSync(mkdtempSync(path.join(tmpdir(), 'tool-guard-')));
    ws = path.join(base, 'ws');
    mkdirSync(path.join(ws, 'src'), { recursive: true });
    mkdirSync(path.join(ws, '.git'));
    writeFileSync(path.join(ws, 'src', 'a.ts'), 'a');
    writeFileSync(path.join(base, 'secret.txt'), 'secret');
    symlinkSync(path.join(base, 'secret.txt'), path.join(ws, 'escape'));
    symlinkSync(path.join(ws, 'src', 'a.ts'), path.join(ws, 'inside'));
    options = {
      workspaceDir: ws,
      rootReal: ws,
      allowedTools: ['Read', 'Glob', 'Grep', 'Edit'],
      masker: new SecretMasker(['sk-guard-secret-123']),
    };
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it.each([
    ['Read', { file_path: 'src/a.ts' }],
    ['Read', { file_path: './src/../src/a.ts' }],
    ['Read', { file_path: '@ABS@/src/a.ts' }],
    ['Read', { file_path: 'inside' }],
    ['Edit', { file_path: 'src/new-file.ts', old_string: '', new_string: 'x' }],
    ['Glob', { pattern: '**/*.ts' }],
    ['Glob', { pattern: '*.ts', path: 'src' }],
    ['Grep', { pattern: 'a', path: '@ABS@', glob: '*.ts' }],
    ['Grep', { pattern: '../is/just/a/regex' }],
  ])('lets %s %j through', async (tool, input) => {
    const resolved = JSON.parse(JSON.stringify(input).replaceAll('@ABS@', ws)) as Record<string, unknown>;
    expect(await reviewToolCall(options, tool, resolved)).toBeUndefined();
  });

  it('with isVisible (review --local), a path outside the visible files is refused', async () => {
    const visible = (relative: string) => ['.', 'src', 'src/a.ts'].includes(relative);
    const local = { ...options, isVisible: visible };
    expect(await reviewToolCall(local, 'Read', { file_path: 'src/a.ts' })).toBeUndefined();
    expect(await reviewToolCall(local, 'Read', { file_path: '.env' })).toMatch(
      /not a file of the repository/,
    );
    expect(await reviewToolCall(local, 'Grep', { pattern: 'x', path: 'node_modules' })).toMatch(
      /not a file of the repository/,
    );
    expect(await reviewToolCall(options, 'Read', { file_path: '.env' })).toBeUndefined();
  });

  it.each([
    ['Read', { file_path: '../secret.txt' }, /outside the workspace/],
    ['Read', { file_path: '/etc/passwd' }, /outside the workspace/],
    ['Read', { file_path: '~/.bashrc' }, /home directory/],
    ['Read', { file_path: 'escape' }, /symlink/],
    ['Read', { file_path: '.git/config' }, /\.git/],
    ['Edit', { file_path: '.GIT/hooks/pre-commit' }, /\.git/],
    ['Grep', { pattern: 'x', path: '..' }, /outside the workspace/],
    ['Glob', { pattern: '../*.txt' }, /must not contain "\.\."/],
    ['Glob', { pattern: '/etc/*' }, /absolute patterns/],
    ['Grep', { pattern: 'x', glob: '/root/**' }, /absolute patterns/],
    ['Bash', { command: 'ls' }, /Bash is not available/],
    ['Bash', { command: 'sleep 600', run_in_background: true }, /run_in_background is not available/],
    ['Bash', { command: 'sleep 600', run_in_background: 'true' }, /run_in_background is not available/],
    ['WebFetch', { url: 'https://example.com' }, /WebFetch is not available/],
  ])('refuses %s %j', async (tool, input, reason) => {
    const withBash = {
      ...options,
      allowedTools: [
        ...options.allowedTools,
        ...(tool === 'Bash' && 'run_in_background' in input ? ['Bash'] : []),
      ],
    };
    expect(await reviewToolCall(withBash, tool, input)).toMatch(reason);
  });

  it.each([
    ['C:/x/*', true],
    ['src/**/*.ts', false],
    ['a..b/*.ts', false],
    ['*'.repeat(1_001), true],
  ])('checkGlobPattern(%s) refuses: %s', (pattern, refused) => {
    expect(checkGlobPattern(pattern) !== undefined).toBe(refused);
  });

  it('unsets the credential variables before a Bash command', () => {
    expect(withCredentialsUnset('env')).toBe(
      'unset ANTHROPIC_API_KEY CLAUDE_CODE_OAUTH_TOKEN ANTHROPIC_AUTH_TOKEN\nenv',
    );
  });

  it('masks every string of a nested value', () => {
    const mask = (t: string) => t.replaceAll('s3cr3t', '***');
    expect(maskDeep({ a: 's3cr3t!', b: [1, 'x s3cr3t'], c: null, d: true }, mask)).toEqual({
      a: '***!',
      b: [1, 'x ***'],
      c: null,
      d: true,
    });
  });

  describe('hooks', () => {
    const signal = new AbortController().signal;
    const base = { session_id: 's', transcript_path: '/t', cwd: '/w' };
    function hook(event: 'PreToolUse' | 'PostToolUse', opts: ToolGuardOptions): HookCallback {
      const hooks = createToolGuardHooks(opts)[event]?.[0]?.hooks[0];
      if (!hooks) throw new Error('no hook');
      return hooks;
    }

    it('denies a refused call with the reason', async () => {
      const input = {
        ...base,
        hook_event_name: 'PreToolUse',
        tool_name: 'Read',
        tool_input: { file_path: '/etc/passwd' },
        tool_use_id: 't',
      };
      const out = await hook('PreToolUse', options)(input as HookInput, 't', { signal });
      expect(out).toEqual({
        hookSpecificOutput: {
          hookEventName: 'PreToolUse',
          permissionDecision: 'deny',
          permissionDecisionReason: 'path is outside the workspace (/etc/passwd)',
        },
      });
    });

    it('lets a foreground Bash command through (run_in_background false or absent)', async () => {
      const bash = { ...options, allowedTools: ['Bash'] };
      expect(await reviewToolCall(bash, 'Bash', { command: 'ls', run_in_background: false })).toBeUndefined();
      expect(await reviewToolCall(bash, 'Bash', { command: 'ls' })).toBeUndefined();
    });

    it('rewrites a Bash command to unset the credentials', async () => {
      const input = {
        ...base,
        hook_event_name: 'PreToolUse',
        tool_name: 'Bash',
        tool_input: { command: 'env', timeout: 5 },
        tool_use_id: 't',
      };
      const out = await hook('PreToolUse', { ...options, allowedTools: ['Bash'] })(input as HookInput, 't', {
        signal,
      });
      expect(out).toEqual({
        hookSpecificOutput: {
          hookEventName: 'PreToolUse',
          updatedInput: { command: withCredentialsUnset('env'), timeout: 5 },
        },
      });
    });

    it('masks secrets in tool output and leaves clean output alone', async () => {
      const post = hook('PostToolUse', options);
      const leaky = {
        ...base,
        hook_event_name: 'PostToolUse',
        tool_name: 'Bash',
        tool_input: {},
        tool_use_id: 't',
        tool_response: { stdout: 'KEY=sk-guard-secret-123', stderr: '' },
      };
      expect(await post(leaky as HookInput, 't', { signal })).toEqual({
        hookSpecificOutput: {
          hookEventName: 'PostToolUse',
          updatedToolOutput: { stdout: 'KEY=***', stderr: '' },
        },
      });
      const clean = { ...leaky, tool_response: { stdout: 'ok', stderr: '' } };
      expect(await post(clean as HookInput, 't', { signal })).toEqual({});
    });
  });
});
