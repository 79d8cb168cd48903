import { describe, expect, it } from 'vitest';
import { createCreationGate, type CreationGate, type StartKind } from './creation-gate.js';

/** A task the test finishes by hand, recording when it started. */
function manualTask(log: string[], name: string) {
  let finish!: (value: string) => void;
  let fail!: (error: Error) => void;
  const done = new Promise<string>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  return {
    task: () => {
      log.push(name);
      return done;
    },
    finish: () => finish(name),
    fail: (error: Error) => fail(error),
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** Fills the gate's one slot with a blocker, queues `kinds` and returns their start order. */
async function startOrder(gate: CreationGate, kinds: StartKind[]): Promise<string[]> {
  const log: string[] = [];
  const blocker = manualTask(log, 'blocker');
  const running = [gate.run('first', blocker.task)];
  const tasks = kinds.map((kind, index) => {
    const name = `${kind}${index}`;
    const task = manualTask(log, name);
    running.push(gate.run(kind, task.task));
    return task;
  });
  await tick();
  blocker.finish();
  // Each task ends as soon as it started, handing the slot on.
  for (let n = 0; n < tasks.length; n += 1) {
    await tick();
    const started = log.at(-1);
    tasks.find((_, index) => `${kinds[index]}${index}` === started)?.finish();
  }
  await Promise.all(running);
  return log.slice(1);
}

describe('createCreationGate', () => {
  it('runs at most `concurrency` tasks at once and the rest as slots free', async () => {
    const gate = createCreationGate({ concurrency: 2 });
    const log: string[] = [];
    const tasks = ['a', 'b', 'c'].map((name) => manualTask(log, name));
    const results = tasks.map((t) => gate.run('first', t.task));
    await tick();
    expect(log).toEqual(['a', 'b']);
    expect(gate.waiting()).toBe(1);
    tasks[1]!.finish();
    await tick();
    expect(log).toEqual(['a', 'b', 'c']);
    expect(gate.waiting()).toBe(0);
    tasks[0]!.finish();
    tasks[2]!.finish();
    expect(await Promise.all(results)).toEqual(['a', 'b', 'c']);
  });

  it('lets hand-overs go before first jobs, in order within each kind', async () => {
    const gate = createCreationGate({ concurrency: 1 });
    expect(await startOrder(gate, ['first', 'first', 'handover', 'handover'])).toEqual([
      'handover2',
      'handover3',
      'first0',
      'first1',
    ]);
  });

  it('never starves first jobs: one that has waited `maxFirstWaitMs` goes before hand-overs', async () => {
    let clock = 0;
    const gate = createCreationGate({ concurrency: 1, maxFirstWaitMs: 100, now: () => clock });
    const log: string[] = [];
    const blocker = manualTask(log, 'blocker');
    const first = manualTask(log, 'first');
    const handovers = ['h1', 'h2', 'h3'].map((name) => manualTask(log, name));
    const runs = [gate.run('handover', blocker.task), gate.run('first', first.task)];
    clock = 60;
    runs.push(...handovers.map((h) => gate.run('handover', h.task)));
    blocker.finish();
    await tick();
    clock = 99;
    handovers[0]!.finish();
    await tick();
    clock = 100;
    handovers[1]!.finish();
    await tick();
    first.finish();
    await tick();
    handovers[2]!.finish();
    await Promise.all(runs);
    expect(log).toEqual(['blocker', 'h1', 'h2', 'first', 'h3']);
  });

  it('frees the slot when a task fails, and passes the error on', async () => {
    const gate = createCreationGate({ concurrency: 1 });
    const log: string[] = [];
    const failing = manualTask(log, 'failing');
    const next = manualTask(log, 'next');
    const first = gate.run('first', failing.task);
    const second = gate.run('handover', next.task);
    failing.fail(new Error('API refused'));
    await expect(first).rejects.toThrow('API refused');
    await tick();
    next.finish();
    expect(await second).toBe('next');
  });

  it('drops a waiter whose signal is aborted, never running its task', async () => {
    const gate = createCreationGate({ concurrency: 1 });
    const log: string[] = [];
    const blocker = manualTask(log, 'blocker');
    const waiting = manualTask(log, 'aborted');
    const after = manualTask(log, 'after');
    const controller = new AbortController();
    const running = gate.run('first', blocker.task);
    const aborted = gate.run('handover', waiting.task, controller.signal);
    const last = gate.run('first', after.task);
    controller.abort(new Error('lease lost'));
    await expect(aborted).rejects.toThrow('lease lost');
    expect(gate.waiting()).toBe(1);
    blocker.finish();
    await tick();
    after.finish();
    expect(await Promise.all([running, last])).toEqual(['blocker', 'after']);
    expect(log).toEqual(['blocker', 'after']);
    await expect(gate.run('first', async () => 'x', AbortSignal.abort(new Error('gone')))).rejects.toThrow(
      'gone',
    );
  });

  it('refuses a bound that is not a positive integer', () => {
    expect(() => createCreationGate({ concurrency: 0 })).toThrow(RangeError);
    expect(() => createCreationGate({ maxFirstWaitMs: -1 })).toThrow(/maxFirstWaitMs/);
  });
});
