/**
 * Shared set-up of the Claude Code runner tests: a fake Anthropic API on loopback, a workspace (a
 * real git repository) under a workspace base with a secret file beside it, and a script router that
 * answers the agent loop's requests from a list and any side request (no tools offered) with text.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  startFakeAnthropic,
  type FakeLlm,
  type RecordedLlmRequest,
  type ScriptedReply,
} from '../../../test/support/fake-llm/index.js';
import { SecretMasker } from '../../secrets.js';
import type { AgentEvent, AgentRunOptions } from '../types.js';
import { createClaudeCodeRunner, type ClaudeCodeRunnerOptions } from './runner.js';

/** The Anthropic key the fake accepts. */
export const KEY = 'sk-ant-claude-code-test-key-0123456789';
/** Content of a file next to the workspace that no tool may read. */
export const SECRET_BESIDE = 'TOPSECRET-BESIDE-THE-WORKSPACE';
/** The source file of the workspace. */
export const SOURCE = 'export const a = 1;\nexport function add(x, y) {\n  return x - y;\n}\n';

/** One test file's fake API and directories. */
export interface RunnerFixture {
  llm: FakeLlm;
  /** `workspace.base_dir` */
  baseDir: string;
  /** The workspace: `<baseDir>/acme/widgets/pr-1`, a git repository holding `src/a.ts`. */
  workspace: string;
  close(): Promise<void>;
}

/** Starts the fake API and creates the workspace. */
export async function createRunnerFixture(): Promise<RunnerFixture> {
  const llm = await startFakeAnthropic({ apiKey: KEY });
  const baseDir = realpathSync(mkdtempSync(path.join(tmpdir(), 'claude-code-runner-')));
  const workspace = path.join(baseDir, 'acme', 'widgets', 'pr-1');
  mkdirSync(path.join(workspace, 'src'), { recursive: true });
  execFileSync('git', ['init', '-q', workspace]);
  writeFileSync(path.join(workspace, 'src', 'a.ts'), SOURCE);
  writeFileSync(path.join(baseDir, 'acme', 'widgets', 'secret.txt'), `${SECRET_BESIDE}\n`);
  return {
    llm,
    baseDir,
    workspace,
    async close() {
      await llm.close();
      rmSync(baseDir, { recursive: true, force: true });
    },
  };
}

/**
 * A script for the fake: agent-loop requests (those offering tools) get `turns` in order (then
 * `"done"`), side requests (title generation and the like, no tools) get a short text.
 */
export function routeTurns(turns: ScriptedReply[]): (request: RecordedLlmRequest) => ScriptedReply {
  let next = 0;
  return (request) => {
    if (request.toolNames.length === 0) return { text: 'Side answer' };
    return turns[next++] ?? { text: 'done' };
  };
}

/** The agent-loop requests the fake received (side requests left out). */
export function loopRequests(llm: FakeLlm): RecordedLlmRequest[] {
  return llm.requests.filter((request) => request.toolNames.length > 0);
}

/** Creates a runner against the fixture's fake. */
export function makeRunner(fixture: RunnerFixture, overrides: Partial<ClaudeCodeRunnerOptions> = {}) {
  return createClaudeCodeRunner({
    workspaceBaseDir: fixture.baseDir,
    env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: fixture.llm.url },
    masker: new SecretMasker([KEY]),
    model: 'claude-sonnet-4-5',
    ...overrides,
  });
}

/** Run options for the fixture's workspace; events are collected into `events`. */
export function runOptions(
  fixture: RunnerFixture,
  events: AgentEvent[],
  overrides: Partial<AgentRunOptions> = {},
): AgentRunOptions {
  return {
    workspaceDir: fixture.workspace,
    systemPrompt: 'You are reviewbot, a careful code reviewer.',
    prompt: 'Review src/a.ts',
    tools: ['Read', 'Glob', 'Grep', 'submit_review'],
    maxTurns: 10,
    onEvent: (event) => events.push(event),
    ...overrides,
  };
}

/** Every text the fake received in requests (messages and tool results), for leak checks. */
export function everythingSent(llm: FakeLlm): string {
  return llm.requests.map((request) => JSON.stringify(request.body)).join('\n');
}
