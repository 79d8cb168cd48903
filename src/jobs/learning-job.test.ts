/**
 * Learning commands as jobs (CONTRACT §20) against the fake GitHub: replies, limits, `forget`, and
 * that no model is called and no workspace is made. (Each reply waits ~3 s: Octokit's throttling
 * spaces content-creating requests.)
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFileLearningsStore } from '../learnings/file-store.js';
import { LEARNING_LIMITS } from '../learnings/types.js';
import { startJobFixture, type JobFixture } from './job-fixture.test-helper.js';
import { makePayload } from './records.test-helper.js';
import { runJob } from './run-job.js';

let fx: JobFixture;
beforeAll(async () => {
  fx = await startJobFixture();
});
afterAll(async () => {
  await fx?.close();
});

/** Runs `prompt` as a REVIEWER mention with a store holding at most `max` learnings; the bot's reply. */
async function command(prompt: string, max = 5): Promise<string> {
  const learnings = createFileLearningsStore({ baseDir: fx.baseDir, maxPerRepository: max });
  const before = fx.github.issueComments.length;
  const result = await runJob(makePayload('reviewer', prompt, fx.comment()), { ...fx.ctx, learnings });
  expect(result).toEqual({ status: 'succeeded' });
  const replies = fx.github.issueComments.slice(before);
  expect(replies).toHaveLength(1);
  return replies[0]!.body ?? '';
}

describe('learning commands', () => {
  it('learn stores, forget removes; no model call, no workspace', async () => {
    const learned = await command('learn   Constants live in config/, never inline.');
    const id = /Learned `([0-9a-f]{8})`: /.exec(learned)![1]!;
    expect(learned).toContain(`\`@${fx.config.reviewer.bot_username} forget ${id}\``);
    const store = createFileLearningsStore({ baseDir: fx.baseDir, maxPerRepository: 5 });
    expect(await store.list({ platform: 'github', repo: 'acme/widgets' })).toEqual([
      expect.objectContaining({ id, text: 'Constants live in config/, never inline.', source: 'command' }),
    ]);
    expect(await command(`FORGET ${id}`)).toBe(`Forgot learning \`${id}\`.`);
    expect(await command(`forget ${id}`)).toBe(`There is no learning \`${id}\` in this repository.`);
    expect(await command('forget everything')).toMatch(/takes a learning id of 8 hex characters/);
    expect(fx.llm.requests).toHaveLength(0);
    expect(existsSync(path.join(fx.baseDir, 'github'))).toBe(false);
  });

  it('refuses empty, too long and over-the-limit learnings with a clear reply', async () => {
    expect(await command('remember')).toMatch(/^Nothing to learn: write `@/);
    const long = 'x'.repeat(LEARNING_LIMITS.maxTextChars + 1);
    expect(await command(`learn ${long}`)).toContain(
      `a learning is at most ${LEARNING_LIMITS.maxTextChars} characters (this one has ${long.length})`,
    );
    expect(await command('learn one', 1)).toMatch(/^Learned/);
    const full = await command('learn two', 1);
    expect(full).toContain('already holds 1 learnings, the limit');
    expect(full).toContain('reviewbot learnings list github:acme/widgets');
    expect(fx.llm.requests).toHaveLength(0);
    expect(fx.github.violations).toEqual([]);
  });
});
