/**
 * No process of a Claude Code run outlives it (CONTRACT §16): when the Claude Code process dies
 * abruptly (SIGKILL, as the SDK sends 5 s after SIGTERM) while its Bash runs a sandboxed command,
 * the orphaned sandbox is killed before `run()` returns, and the workspace stops changing.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeSandbox } from '../sandbox/index.js';
import {
  createRunnerFixture,
  makeRunner,
  routeTurns,
  runOptions,
  type RunnerFixture,
} from './runner-fixture.test-helper.js';

const status = await probeSandbox('auto');
let fixture: RunnerFixture;

beforeAll(async () => {
  fixture = await createRunnerFixture();
});
afterAll(async () => {
  await fixture?.close();
});

/** Live (not zombie) processes whose command line holds `word` as one argument. */
function processesNaming(word: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (/^[ZX]$/.test(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] ?? '')) continue;
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').includes(word))
        found.push(Number(entry));
    } catch {
      // gone
    }
  }
  return found;
}

/** The Claude Code process this test started (`--output-format stream-json`, a child of ours). */
function claudeProcess(): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (ppid === process.pid && args.includes('stream-json')) return Number(entry);
    } catch {
      // gone
    }
  }
  return undefined;
}

async function until(condition: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const size = (file: string) => {
  try {
    return statSync(file).size;
  } catch {
    return -1;
  }
};

describe.runIf(status.kind === 'bwrap')('a Claude Code run whose process is SIGKILLed', () => {
  it('leaves no sandboxed command running after run() returns', async () => {
    const tick = path.join(fixture.workspace, 'tick.log');
    const loop = 'while :; do echo tick >> tick.log; sleep 0.05; done';
    fixture.llm.setScript(
      routeTurns([{ toolCalls: [{ name: 'Bash', input: { command: loop, timeout: 600_000 } }] }]),
    );
    const tools = ['Read', 'Glob', 'Grep', 'Write', 'Edit', 'Bash'] as const;
    const running = makeRunner(fixture)
      .run(runOptions(fixture, [], { tools: [...tools], maxTurns: 5 }))
      .then(
        () => 'returned',
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      );
    await until(() => size(tick) > 0, 60_000);
    const claude = claudeProcess();
    expect(claude).toBeDefined();
    process.kill(claude as number, 'SIGKILL');
    const outcome = await running;
    expect(outcome).toMatch(/SIGKILL|could not run Claude Code|returned/);

    // Every sandbox of the run names the workspace in its bwrap arguments.
    expect(processesNaming(fixture.workspace)).toEqual([]);
    const after = size(tick);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(size(tick)).toBe(after);
  }, 120_000);
});
