/**
 * Review cost benchmark (CONTRACT §15): a scripted 12-turn review (11 tool calls, then
 * submit_review) of a 40,000-token diff through the API runner against the fake Anthropic API,
 * which accounts prompt caching as the real API does. The same review runs twice in this process,
 * with prompt caching and without (the baseline); the input is priced the way a review prices it:
 * the run's own `usage` events and result go through the review's usage meter (per call, by kind),
 * at the catalogue's prices for the model (`@pydantic/genai-prices`), output priced at 0 (the
 * benchmark compares billed input). Prints one JSON object on stdout:
 * `{"turns":12,"diffTokens":…,"withCaching":{…},"withoutCaching":{…},"ratio":…,"target":0.3,"pass":…}`.
 * Exit code 0 whether or not the target is met.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createApiRunner } from '../src/agent/api-runner.js';
import { loadCatalogueRates } from '../src/agent/pricing.js';
import { createUsageMeter } from '../src/review/usage-meter.js';
import { REVIEWER_TOOLS } from '../src/agent/tools/names.js';
import { startFakeAnthropic, type ScriptedReply } from '../test/support/fake-llm/index.js';

const KEY = 'sk-bench-review-cost-0123456789';
const MODEL = 'claude-sonnet-4-5';
const TURNS = 12;
const DIFF_TOKENS = 40_000;
const TARGET = 0.3;

/** About `tokens` tokens of annotated diff (the fake counts 4 characters per token). */
function diffOf(tokens: number): string {
  const lines: string[] = [];
  let chars = 0;
  for (let i = 1; chars < tokens * 4; i++) {
    const line = `${String(i).padStart(5)} ${String(i).padStart(5)} │+ const value${i} = compute(${i}, options.limit);`;
    lines.push(line);
    chars += line.length + 1;
  }
  return lines.join('\n');
}

function script(): ScriptedReply[] {
  const replies: ScriptedReply[] = [];
  for (let i = 0; i < TURNS - 1; i++) {
    replies.push({
      toolCalls: [{ name: 'Read', input: { file_path: 'src/service.ts', offset: i * 5 + 1, limit: 5 } }],
    });
  }
  replies.push({ toolCalls: [{ name: 'submit_review', input: { summary: 'Reviewed.', comments: [] } }] });
  return replies;
}

async function main(): Promise<void> {
  const rates = await loadCatalogueRates('anthropic', MODEL);
  if (!rates) throw new Error(`@pydantic/genai-prices has no price for ${MODEL}`);
  const fake = await startFakeAnthropic({ apiKey: KEY });
  const workspace = mkdtempSync(path.join(tmpdir(), 'bench-review-cost-'));
  execFileSync('git', ['init', '-q', workspace]);
  mkdirSync(path.join(workspace, 'src'));
  writeFileSync(
    path.join(workspace, 'src', 'service.ts'),
    Array.from({ length: 80 }, (_, i) => `export const line${i} = ${i};`).join('\n'),
  );
  const diff = diffOf(DIFF_TOKENS);

  const measure = async (promptCaching: boolean) => {
    fake.setScript(script());
    fake.requests.length = 0;
    const runner = createApiRunner({
      provider: 'anthropic',
      model: MODEL,
      baseUrl: `${fake.url}/v1`,
      env: { ANTHROPIC_API_KEY: KEY },
      promptCaching,
    });
    // The review's own path: the meter prices each call from the runner's usage events.
    const meter = createUsageMeter({ rates: { ...rates, output: { base: 0, tiers: [] } } });
    const run = await runner.run({
      onEvent: (event) => {
        if (event.type === 'usage') meter.update(1, event.usage);
      },
      workspaceDir: workspace,
      systemPrompt: 'You are reviewbot, a meticulous senior code reviewer.',
      prompt: `Review this pull request.\n\nAnnotated diff:\n${diff}`,
      tools: [...REVIEWER_TOOLS],
      maxTurns: TURNS + 2,
    });
    meter.finish(1, run);
    const { input, cacheWrite, cacheRead } = meter.tokens();
    return {
      turns: run.turns,
      tokens: { input, cacheWrite, cacheRead },
      inputCostUsd: Number((meter.costUsd() ?? Number.NaN).toFixed(6)),
    };
  };

  const withCaching = await measure(true);
  const withoutCaching = await measure(false);
  await fake.close();
  rmSync(workspace, { recursive: true, force: true });
  const ratio = withCaching.inputCostUsd / withoutCaching.inputCostUsd;
  const result = {
    model: MODEL,
    turns: withCaching.turns,
    diffTokens: DIFF_TOKENS,
    prices: {
      inputPerMtok: rates.input.base,
      cacheWritePerMtok: rates.cacheWrite.base,
      cacheReadPerMtok: rates.cacheRead.base,
    },
    withCaching,
    withoutCaching,
    ratio: Number(ratio.toFixed(3)),
    target: TARGET,
    pass: ratio <= TARGET && withCaching.turns === TURNS,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

await main();
