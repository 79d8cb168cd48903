/**
 * The escape battery of CONTRACT §16 (the subset that applies to a single run) through the real
 * Claude Code binary against the fake Anthropic API: its Bash runs in the same bubblewrap sandbox
 * (the PreToolUse hook rewrites the command), so no secret of this process, in any encoding, and no
 * canary file outside the workspace reaches the model; nothing outside the workspace changes; a
 * legitimate edit + `node --test` still works. Without a sandbox, Bash is refused with the reason.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  batteryCommands,
  findLeaks,
  LEGIT_CALLS,
  type BatteryTargets,
} from '../../../test/support/sandbox-battery.js';
import { probeSandbox, type ToolSandbox } from '../sandbox/index.js';
import {
  createRunnerFixture,
  KEY,
  loopRequests,
  makeRunner,
  routeTurns,
  runOptions,
  type RunnerFixture,
} from './runner-fixture.test-helper.js';

const WORKER_TOOLS = ['Read', 'Glob', 'Grep', 'Write', 'Edit', 'Bash'] as const;
const CANARY = 'canary-claude-code-4b7e2a-OUTSIDE';
const PLANTED = {
  CODEHOST_TOKEN: 'ghp_claudeBatteryTokenMustNotLeak000111',
  REVIEWBOT_PLAIN_NAMED_VALUE: 'plain-claude-value-9d3c',
};
const status = await probeSandbox('auto');

let fixture: RunnerFixture;
let server: http.Server;
let targets: BatteryTargets;
const saved: Record<string, string | undefined> = {};

beforeAll(async () => {
  fixture = await createRunnerFixture();
  server = http.createServer((_req, res) => res.end('host server'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const canaryPath = path.join(fixture.baseDir, 'canary.txt');
  writeFileSync(canaryPath, CANARY);
  targets = {
    canaryPath,
    writeTargets: [path.join(fixture.baseDir, 'pwned.txt'), path.join(fixture.baseDir, 'acme', 'pwned.txt')],
    hostUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    forkBomb: false,
  };
  for (const [name, value] of Object.entries(PLANTED)) {
    saved[name] = process.env[name];
    process.env[name] = value;
  }
});
afterAll(async () => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await new Promise((resolve) => server.close(resolve));
  await fixture.close();
});

/** The battery minus the flood tests (Claude Code bounds its own Bash output and time). */
const attempts = () =>
  batteryCommands(targets).filter(([label]) => label !== 'fork bomb' && label !== 'runaway output');

describe.runIf(status.kind === 'bwrap')('Claude Code Bash in the sandbox', () => {
  it('reaches no secret or canary, changes nothing outside, and a legitimate task still works', async () => {
    const turns = [
      ...attempts().map(([label, command]) => ({
        text: `Trying ${label}.`,
        toolCalls: [{ name: 'Bash', input: { command } }],
      })),
      ...LEGIT_CALLS,
    ];
    fixture.llm.setScript(routeTurns(turns));
    const result = await makeRunner(fixture).run(
      runOptions(fixture, [], { tools: [...WORKER_TOOLS], maxTurns: 30 }),
    );
    expect(result.text).toContain('Added `double`');
    const requests = loopRequests(fixture.llm);
    const results = attempts().map(
      ([label], index) => [label, requests[index + 1]?.toolResults[0]?.content ?? ''] as const,
    );
    expect(results.every(([, content]) => content !== '')).toBe(true);
    const byLabel = new Map(results);
    expect(byLabel.get('canary plain')).toMatch(/No such file/);
    expect(byLabel.get('open fds')).toMatch(/^0 1 2 3 *\n/);
    expect(byLabel.get('network')).toMatch(/BLOCKED/);
    expect(byLabel.get('git config')).toContain('user.name=evil-global');
    expect(
      findLeaks({ 'model requests': JSON.stringify(fixture.llm.requests.map((r) => r.body)) }, [
        ...Object.values(PLANTED),
        KEY,
        CANARY,
      ]),
    ).toEqual([]);
    for (const target of targets.writeTargets) expect(existsSync(target), target).toBe(false);
    expect(readFileSync(targets.canaryPath, 'utf8')).toBe(CANARY);
    const testRun = requests.at(-1)?.toolResults[0];
    expect(testRun?.content).toMatch(/# pass 1/);
    expect(readFileSync(path.join(fixture.workspace, 'src', 'double.mjs'), 'utf8')).toContain('n * 2');
  });
});

describe('Claude Code Bash without a working sandbox (agent.sandbox: auto)', () => {
  it('is refused with the reason and runs nothing', async () => {
    const marker = path.join(fixture.baseDir, 'ran-unsandboxed');
    const refused: ToolSandbox = {
      status: { kind: 'unavailable', reason: 'bwrap: No permissions to create new namespace' },
      networkHosts: [],
    };
    fixture.llm.requests.length = 0;
    fixture.llm.setScript(
      routeTurns([
        { toolCalls: [{ name: 'Bash', input: { command: `touch ${marker}` } }] },
        { text: 'Could not run it.' },
      ]),
    );
    await makeRunner(fixture, { sandbox: refused }).run(
      runOptions(fixture, [], { tools: [...WORKER_TOOLS] }),
    );
    const result = loopRequests(fixture.llm)[1]?.toolResults[0];
    expect(result?.isError).toBe(true);
    expect(result?.content).toContain(
      'Bash is unavailable: no working sandbox on this host (bwrap: No permissions to create new namespace)',
    );
    expect(existsSync(marker)).toBe(false);
  });
});
