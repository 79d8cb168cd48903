/**
 * End to end with the `google` provider: the built CLI reviews a pull request on the fake GitHub
 * with a scripted Gemini (the fake speaks `@ai-sdk/google`'s wire protocol: streamGenerateContent
 * over SSE, function calls and responses, Gemini 3's thought signatures), its default model
 * included: no `AGENT_MODEL` is set.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDERS } from '../../src/agent/providers.js';
import { startFakeGemini, type FakeLlm } from '../support/fake-llm/index.js';
import { runCli } from '../support/run-cli.js';
import {
  createCliFixture,
  GITHUB_TOKEN,
  LLM_KEY,
  reviewLines,
  reviewScript,
  type CliFixture,
} from './cli-fixture.js';

describe('reviewbot review with AGENT_PROVIDER=google', () => {
  let fx: CliFixture;
  let llm: FakeLlm;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    fx = await createCliFixture();
    llm = await startFakeGemini({ apiKey: LLM_KEY });
    env = {
      CODEHOST_TOKEN: GITHUB_TOKEN,
      CODEHOST_API_URL: fx.github.url,
      WORKSPACE_BASE_DIR: fx.baseDir,
      HOME: fx.root,
      AGENT_PROVIDER: 'google',
      GOOGLE_GENERATIVE_AI_API_KEY: LLM_KEY,
      AGENT_BASE_URL: `${llm.url}/v1beta`,
    };
  });
  afterAll(async () => {
    await llm?.close();
    await fx?.close();
  });

  it('posts the review the model submitted, on the right lines, with the default model', async () => {
    llm.setScript(reviewScript(fx.scenario));
    const result = await runCli(['review', 'acme/widgets#7', '--json'], env);
    expect(result.stderr).not.toMatch(/reviewbot: /);
    expect(result.code).toBe(0);
    const parsed = JSON.parse(result.stdout) as { model: string; posted: boolean };
    expect(parsed).toMatchObject({ model: PROVIDERS.google.defaultModel, posted: true });

    // Three streamed calls to the default model, each answered.
    expect(llm.requests.map((r) => [r.protocol, r.model, r.stream, r.status])).toEqual([
      ['gemini', PROVIDERS.google.defaultModel, true, 200],
      ['gemini', PROVIDERS.google.defaultModel, true, 200],
      ['gemini', PROVIDERS.google.defaultModel, true, 200],
    ]);
    const [first, second] = llm.requests;
    expect(first!.toolNames.sort()).toEqual(['Glob', 'Grep', 'Read', 'submit_review']);
    expect(first!.system).toContain('You are reviewbot');
    expect(first!.messages.at(-1)!.text).toMatch(
      /<untrusted-data-[0-9a-f]+ kind="pull-request">\nTune the service constants/,
    );
    // The tool results went back as function responses, and the model turn kept its signature.
    expect(second!.toolResults.map((r) => r.toolName)).toEqual(['Read', 'Grep']);
    expect(second!.toolResults[0]!.content).toContain('export const v3 = 300;');
    const modelTurn = (
      second!.body as { contents: Array<{ role: string; parts: Array<Record<string, unknown>> }> }
    ).contents.find((c) => c.role === 'model')!;
    expect(modelTurn.parts.find((p) => p.functionCall)?.thoughtSignature).toEqual(expect.any(String));

    expect(fx.github.reviews).toHaveLength(1);
    const review = fx.github.reviews[0]!;
    expect(review.body).toContain('The constants change looks deliberate');
    const lines = reviewLines(fx.scenario);
    const comments = fx.github.reviewComments.filter((c) => c.pull_request_review_id === review.id);
    expect(comments.map((c) => [c.path, c.line, c.side]).sort()).toEqual(
      [
        [lines.right.path, lines.right.line, 'RIGHT'],
        [lines.left.path, lines.left.line, 'LEFT'],
        [lines.range.path, lines.range.line, 'RIGHT'],
      ].sort(),
    );
    expect(fx.github.violations).toEqual([]);
  });

  it('fails with the provider’s error, not a review, when the model id is unknown', async () => {
    llm.setScript([{ text: 'never reached' }]);
    const before = fx.github.reviews.length;
    const result = await runCli(['review', 'acme/widgets#7'], {
      ...env,
      AGENT_MODEL: 'gemini-no-such-model',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/gemini-no-such-model/);
    expect(result.stderr).not.toContain(LLM_KEY);
    expect(llm.requests.at(-1)).toMatchObject({ model: 'gemini-no-such-model', status: 404 });
    expect(fx.github.reviews).toHaveLength(before);
  });
});
