/**
 * Prompt caching (CONTRACT §15) against the fake Anthropic API, which accounts cache writes and
 * reads as the real API does: a multi-turn review bills most of its input as cache reads, and the
 * runner reports usage by kind.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeLlm, type ScriptedReply } from '../../test/support/fake-llm/index.js';
import { createApiRunner } from './api-runner.js';
import { costOfCall, usageByKind, type ModelRates } from './pricing.js';
import { REVIEWER_TOOLS } from './tools/index.js';

const KEY = 'test-key-cache-0123456789';
/** Anthropic's list prices for a Sonnet model, USD per million tokens. */
const RATES: ModelRates = {
  input: { base: 3, tiers: [] },
  cacheWrite: { base: 3.75, tiers: [] },
  cacheRead: { base: 0.3, tiers: [] },
  output: { base: 15, tiers: [] },
};

/** A scripted review: `turns - 1` Read calls, then submit_review. */
function script(turns: number): ScriptedReply[] {
  const replies: ScriptedReply[] = [];
  for (let i = 0; i < turns - 1; i++) {
    replies.push({ toolCalls: [{ name: 'Read', input: { file_path: 'src/a.ts', limit: 5 } }] });
  }
  replies.push({ toolCalls: [{ name: 'submit_review', input: { summary: 'ok', comments: [] } }] });
  return replies;
}

describe('Anthropic prompt caching', () => {
  let fake: FakeLlm;
  let base: string;
  const diff = Array.from(
    { length: 2000 },
    (_, i) => `  ${i}   ${i} │+ const value${i} = compute(${i});`,
  ).join('\n');

  beforeAll(async () => {
    fake = await startFakeAnthropic({ apiKey: KEY });
    base = realpathSync(mkdtempSync(path.join(tmpdir(), 'api-runner-cache-')));
    execFileSync('git', ['init', '-q', base]);
    execFileSync('mkdir', ['-p', path.join(base, 'src')]);
    writeFileSync(path.join(base, 'src', 'a.ts'), 'export const a = 1;\n');
  });
  afterAll(async () => {
    await fake.close();
    rmSync(base, { recursive: true, force: true });
  });

  async function review(promptCaching: boolean) {
    fake.setScript(script(6));
    fake.requests.length = 0;
    const runner = createApiRunner({
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      baseUrl: `${fake.url}/v1`,
      env: { ANTHROPIC_API_KEY: KEY },
      promptCaching,
    });
    return runner.run({
      workspaceDir: base,
      systemPrompt: 'You are a careful reviewer. '.repeat(50),
      prompt: `Review this diff:\n${diff}`,
      tools: [...REVIEWER_TOOLS],
      maxTurns: 10,
    });
  }

  it('marks the system prompt, the diff message and the latest turn, at most four breakpoints', async () => {
    await review(true);
    expect(fake.requests).toHaveLength(6);
    for (const request of fake.requests) {
      expect(request.status).toBe(200);
      const body = request.body as {
        system: Array<{ cache_control?: unknown }>;
        messages: Array<{ content: Array<{ cache_control?: unknown }> }>;
      };
      expect(body.system.at(-1)?.cache_control).toEqual({ type: 'ephemeral' });
      expect(body.messages[0]!.content.at(-1)?.cache_control).toEqual({ type: 'ephemeral' });
      expect(body.messages.at(-1)!.content.at(-1)?.cache_control).toEqual({ type: 'ephemeral' });
      const marked = JSON.stringify(body).split('"cache_control"').length - 1;
      expect(marked).toBeLessThanOrEqual(4);
    }
  });

  it('bills a multi-turn review mostly as cache reads, and reports usage by kind', async () => {
    const cached = await review(true);
    const plain = await review(false);
    const kinds = usageByKind(cached.usage);
    expect(kinds.cacheWrite).toBeGreaterThan(0);
    expect(kinds.cacheRead).toBeGreaterThan(kinds.cacheWrite);
    // Same conversation, same total input; only the billing differs.
    expect(cached.usage.inputTokens).toBeGreaterThan(0);
    expect(
      Math.abs(cached.usage.inputTokens - plain.usage.inputTokens) / plain.usage.inputTokens,
    ).toBeLessThan(0.05);
    expect(plain.usage.cacheReadTokens ?? 0).toBe(0);
    const cost = (u: typeof kinds) => costOfCall({ ...u, output: 0 }, RATES);
    expect(cost(kinds)).toBeLessThan(0.5 * cost(usageByKind(plain.usage)));
  });

  it('asks before every model call and sends none it refuses (the hard cost cap)', async () => {
    fake.setScript(script(6));
    fake.requests.length = 0;
    const runner = createApiRunner({
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      baseUrl: `${fake.url}/v1`,
      env: { ANTHROPIC_API_KEY: KEY },
    });
    const asked: Array<{ promptChars: number; maxOutputTokens: number }> = [];
    const prompt = `Review this diff:\n${diff}`;
    const run = runner.run({
      workspaceDir: base,
      systemPrompt: 'You are a careful reviewer.',
      prompt,
      tools: [...REVIEWER_TOOLS],
      maxTurns: 10,
      beforeModelCall: (call) => {
        asked.push(call);
        return asked.length <= 2;
      },
    });
    await expect(run).rejects.toThrow(/refused/);
    // Two calls sent, the third refused before it reached the API.
    expect(fake.requests).toHaveLength(2);
    expect(asked).toHaveLength(3);
    // Each estimate covers at least the prompt, and grows with the conversation.
    expect(asked[0]!.promptChars).toBeGreaterThan(prompt.length);
    expect(asked[1]!.promptChars).toBeGreaterThan(asked[0]!.promptChars);
    expect(asked[0]!.maxOutputTokens).toBeGreaterThan(0);
  });
});
