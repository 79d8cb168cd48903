/**
 * End to end, severity, the verdict and the merge gate (CONTRACT §21) with the built CLI on every
 * platform's fake, through review memory (§13): one pull request across three pushes.
 * Push 1: four findings of four severities with `max_comments` 2 — the P0 and the P1 go inline
 * (each opening with its badge, its marker carrying its severity), the P2 and the P3 are folded into
 * the body, most severe first; the verdict (`block_on` P0) is blocking and the `reviewbot/verdict`
 * status is red on the head. Push 2 adds nothing new: the earlier P0 is still open, so the new head
 * is red too. Push 3 rewrites the P0's line: it is addressed, the verdict is non-blocking (the P1
 * remains) and the new head is green; `--fail-on P1` still exits 3, `--fail-on P0` does not.
 * Between push 2 and 3, `@<reviewer> override <reason>` run as a Job pod runs (`reviewbot run-job`)
 * turns push 2's red gate green, naming who and why, with no model call.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeLlm, type ScriptedReply } from '../support/fake-llm/index.js';
import type { JobPayload } from '../../src/jobs/types.js';
import { startRedis, type RedisServer } from '../support/redis-server.js';
import { runCli } from '../support/run-cli.js';
import {
  CALC,
  createMemoryRepo,
  githubDriver,
  gitlabDriver,
  LLM_KEY,
  tempRoot,
  type MemoryDriver,
  type MemoryRepo,
} from './memory-fixture.js';
import { azureDevOpsDriver } from './memory-fixture-azure-devops.js';
import { bitbucketDriver } from './memory-fixture-bitbucket.js';
import { bitbucketServerDriver } from './memory-fixture-bitbucket-server.js';
import { giteaDriver } from './memory-fixture-gitea.js';

type Comment = Record<string, unknown>;

function submit(summary: string, comments: Comment[]): ScriptedReply[] {
  return [{ toolCalls: [{ name: 'submit_review', input: { summary, comments } }] }];
}

interface Finding {
  path: string;
  line: number;
  body: string;
  severity: string;
  confidence: number | null;
}

interface Result {
  body: string;
  findings: Finding[];
  rejected: Finding[];
  belowThreshold: Finding[];
  verdict: { status: string; counts: Record<string, number>; blockOn: string };
  receipt: { findings: { bySeverity: Record<string, number>; belowThreshold: number } };
}

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

/** A REVIEWER mention `@rb-review <prompt>` by alice on pull request 1, as a Job pod's payload. */
function mention(driver: MemoryDriver, prompt: string, headSha: string): JobPayload {
  const body = `@rb-review ${prompt}`;
  return {
    version: 1,
    jobId: randomUUID(),
    botType: 'reviewer',
    prompt,
    enqueuedAt: new Date().toISOString(),
    comment: {
      platform: driver.name,
      repoFullName: driver.ref(1).replace(/#1$/, ''),
      prNumber: 1,
      prBranch: 'feature',
      baseBranch: 'main',
      headSha,
      prTitle: 'Calc',
      commentId: '424242',
      commentType: 'issue_comment',
      authorUsername: 'alice',
      body,
      cloneUrl: '',
      deliveryId: `delivery-${randomUUID()}`,
      eventType: 'comment',
    },
  };
}

describe.each([
  { name: 'github (token: commit status)', start: () => githubDriver() },
  { name: 'github (App: check run)', start: () => githubDriver({ app: true }) },
  { name: 'gitlab', start: gitlabDriver },
  { name: 'gitea', start: () => giteaDriver(true) },
  { name: 'bitbucket cloud', start: bitbucketDriver },
  { name: 'bitbucket data center', start: bitbucketServerDriver },
  { name: 'azure devops', start: azureDevOpsDriver },
])('the verdict gate on $name (CLI)', ({ start }) => {
  let root: ReturnType<typeof tempRoot>;
  let driver: MemoryDriver;
  let llm: FakeLlm;
  let repo: MemoryRepo;
  let env: NodeJS.ProcessEnv;
  const heads: string[] = [];

  async function review(script: ScriptedReply[], extra: string[] = [], code = 0) {
    llm.setScript(script);
    const run = await runCli(['review', driver.ref(1), '--platform', driver.name, '--json', ...extra], env);
    if (code === 0) expect(run.stderr).not.toMatch(/reviewbot: /);
    expect(run.code).toBe(code);
    return { result: JSON.parse(run.stdout) as Result, stderr: run.stderr };
  }

  beforeAll(async () => {
    root = tempRoot();
    driver = await start();
    llm = await startFakeAnthropic({ apiKey: LLM_KEY });
    repo = createMemoryRepo(root.path, 'acme/calc');
    heads.push(repo.push1());
    await driver.addPullRequest(repo, 1, 'acme/calc');
    env = {
      ...driver.env,
      WORKSPACE_BASE_DIR: `${root.path}/workspaces`,
      AGENT_PROVIDER: 'anthropic',
      AGENT_MODEL: 'test-model',
      ANTHROPIC_API_KEY: LLM_KEY,
      ANTHROPIC_BASE_URL: llm.url,
      HOME: root.path,
      REVIEW_GATE: 'on',
      REVIEW_BLOCK_ON: 'P0',
      REVIEW_MAX_COMMENTS: '2',
    };
  });
  afterAll(async () => {
    await llm?.close();
    await driver?.close();
    root?.remove();
  });

  it('push 1: ranked and folded by severity; an open P0 makes the gate red', async () => {
    const { result } = await review(
      submit('Four problems.', [
        { path: CALC.path, line: 2, body: 'Nit: say "side effects".', severity: 'P3', confidence: 0.95 },
        {
          path: CALC.path,
          line: CALC.loopLine.v1,
          body: 'The loop bound reads one past the end.',
          severity: 'P1',
          confidence: 0.6,
        },
        {
          path: CALC.path,
          line: CALC.divisionLine.v1,
          body: 'Division by zero when `b` is 0.',
          severity: 'P0',
        },
        { path: CALC.path, line: 3, body: 'Minor: the comment is stale.', severity: 'P2', confidence: 1 },
      ]),
    );
    expect(result.findings.map((f) => [f.severity, f.confidence])).toEqual([
      ['P1', 0.6],
      ['P0', null],
    ]);
    expect(result.rejected.map((f) => f.severity)).toEqual(['P2', 'P3']);
    expect(result.belowThreshold).toEqual([]);
    expect(result.verdict).toEqual({
      status: 'blocking',
      counts: { P0: 1, P1: 1, P2: 1, P3: 1 },
      blockOn: 'P0',
    });
    expect(result.receipt.findings).toEqual({
      bySeverity: { P0: 1, P1: 1, P2: 1, P3: 1 },
      belowThreshold: 0,
    });
    // The verdict line right under the summary; the folded findings with their badges.
    expect(result.body).toContain(
      'Four problems.\n\n**Verdict:** blocking — P0 ×1 · 3 other findings\n\n### Additional notes',
    );
    expect(result.body).toMatch(
      /- \*\*P2\*\* `src\/calc\.ts:3` \(RIGHT\): Minor[\s\S]*- \*\*P3\*\* `src\/calc\.ts:2`/,
    );
    const threads = driver.botThreads(1);
    expect(threads.map((t) => t.body.split('\n')[0])).toEqual([
      '**P1** The loop bound reads one past the end.',
      '**P0** Division by zero when `b` is 0.',
    ]);
    expect(threads[1]!.body).toMatch(/<!-- reviewbot:finding fp=[0-9a-f]{16} side=RIGHT n=1 sev=P0 -->$/);
    expect(driver.gate(1, heads[0]!)).toEqual({
      state: 'failure',
      description: 'blocking — P0 ×1 · 3 other findings',
    });
    expect(driver.violations()).toEqual([]);
  });

  it('push 2: nothing new, but the earlier P0 is still open: the new head is red too', async () => {
    heads.push(repo.push2());
    const { result } = await review(submit('Only a header.', []));
    expect(result.findings).toEqual([]);
    expect(result.verdict).toEqual({
      status: 'blocking',
      counts: { P0: 1, P1: 1, P2: 0, P3: 0 },
      blockOn: 'P0',
    });
    expect(result.body).toContain('**Verdict:** blocking — P0 ×1 · 1 other finding');
    expect(driver.gate(1, heads[1]!)).toMatchObject({ state: 'failure' });
    expect(driver.violations()).toEqual([]);
  });

  it('override: an allowed user turns the red gate of the current head green, naming who and why', async () => {
    const runJob = (prompt: string) =>
      runCli(['run-job'], {
        ...env,
        // Nothing listens here: a model call would fail the job.
        ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
        STORE_URL: redis.url,
        REVIEWER_BOT_USERNAME: 'rb-review',
        REVIEWBOT_JOB_PAYLOAD: JSON.stringify(mention(driver, prompt, heads[1]!)),
      });
    const before = llm.requests.length;
    const empty = await runJob('override');
    expect(empty.code).toBe(0);
    expect(driver.botBodies(1).at(-1)).toContain(
      'An override needs a reason: `@rb-review override <why this may merge>`',
    );
    expect(driver.gate(1, heads[1]!)).toMatchObject({ state: 'failure' });

    const done = await runJob('override Hotfix approved by the release manager');
    expect(done.code).toBe(0);
    expect(driver.gate(1, heads[1]!)).toEqual({
      state: 'success',
      description: 'overridden by @alice: Hotfix approved by the release manager',
    });
    expect(driver.botBodies(1).at(-1)).toContain(
      `The \`reviewbot/verdict\` gate is green for \`${heads[1]!.slice(0, 12)}\`: overridden by \`alice\``,
    );
    expect(llm.requests.length).toBe(before);
    expect(driver.violations()).toEqual([]);
  });

  it("push 3: the P0's line is rewritten: not blocking, the gate is green; --fail-on P1 still fails", async () => {
    heads.push(repo.push3());
    const { result } = await review(submit('The division is guarded now.', []));
    expect(result.verdict).toEqual({
      status: 'non-blocking',
      counts: { P0: 0, P1: 1, P2: 0, P3: 0 },
      blockOn: 'P0',
    });
    expect(result.body).toContain('**Verdict:** non-blocking — P1 ×1');
    expect(driver.gate(1, heads[2]!)).toEqual({ state: 'success', description: 'non-blocking — P1 ×1' });

    const failing = await review(submit('Again.', []), ['--dry-run', '--fail-on', 'P1'], 3);
    expect(failing.stderr).toContain(
      'reviewbot: verdict non-blocking — P1 ×1: an open finding is at or above P1',
    );
    await review(submit('Again.', []), ['--dry-run', '--fail-on', 'P0'], 0);
    expect(driver.violations()).toEqual([]);
  });
});
