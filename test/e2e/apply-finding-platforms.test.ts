/**
 * `@<worker> apply` on GitLab, Gitea, Bitbucket Cloud, Bitbucket Data Center and Azure DevOps,
 * through `reviewbot serve` and each platform's fake (one server per platform, one adapter per
 * fake: `apply-adapters-*.ts`). On every platform: a suggestion is applied by the product itself,
 * byte for byte (a CRLF file without a final newline, a multi-line range, a range that shrinks, a
 * range starting with a blank line), committed and pushed, the reply names the SHA and the thread
 * is resolved; a finding on the old side is refused with the reason; a stale finding commits
 * nothing; a finding without a suggestion becomes one WORKER agent run; `apply all` applies every
 * open suggestion in one commit and lists what it skipped; a user outside the allow list is
 * ignored; a thread the platform refuses to resolve is said to be unresolved. Each applied finding
 * counts once as `addressed` in `/metrics`, and `reviewbot stats` counts it addressed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADDRESSED_MARKER } from '../../src/platforms/gitea/threads.js';
import { startFakeAnthropic, type FakeLlm } from '../support/fake-llm/index.js';
import { runCli } from '../support/run-cli.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import { azureDevOpsAdapter } from './apply-adapters-azure-devops.js';
import { bitbucketCloudAdapter, bitbucketServerAdapter } from './apply-adapters-bitbucket.js';
import { giteaAdapter, gitlabAdapter } from './apply-adapters-gitlab-gitea.js';
import { SEEDS, createApplyRepo, type ApplyAdapter, type ApplyRepo, type SeedName } from './apply-fixture.js';
import { LLM_KEY } from './cli-fixture.js';
import { waitFor } from './serve-fixture.js';

const PLATFORMS: Array<() => ApplyAdapter> = [
  gitlabAdapter,
  giteaAdapter,
  bitbucketCloudAdapter,
  bitbucketServerAdapter,
  azureDevOpsAdapter,
];

/** The reply after pushing `sha` on `feature` and resolving the thread. */
const appliedText = (sha: string) =>
  `Applied this suggestion in commit ${sha} on \`feature\`, and resolved this thread.`;

describe.each(PLATFORMS.map((make) => [make().name, make] as const))('@worker apply on %s', (_, make) => {
  const adapter = make();
  let root: string;
  let repo: ApplyRepo;
  let llm: FakeLlm;
  let server: ServeProcess;
  let env: Record<string, string>;
  const ids = {} as Record<SeedName, string>;
  const mention = (extra = '') => `@${adapter.worker} apply${extra ? ` ${extra}` : ''}`;
  /** Alice asks to apply finding `name`; resolves with the bot's first reply in its thread. */
  const apply = async (name: SeedName, extra = '') => {
    const res = await adapter.reply(server.url, ids[name], mention(extra), 'alice');
    expect(res.json).toMatchObject({ status: 'accepted' });
    // Not Gitea's marked reply, which stands for a resolution the server refused.
    const answer = () => adapter.botReplies(ids[name]).find((t) => !t.includes(ADDRESSED_MARKER));
    return waitFor(answer, 60_000, `the reply to apply ${name}`);
  };

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), `reviewbot-apply-${adapter.platform}-`));
    repo = createApplyRepo(root, 'acme/widgets');
    const platformEnv = await adapter.start(repo);
    for (const name of Object.keys(SEEDS) as SeedName[]) ids[name] = await adapter.seedFinding(SEEDS[name]);
    llm = await startFakeAnthropic({ apiKey: LLM_KEY });
    env = {
      REVIEWER_BOT_USERNAME: 'review-bot',
      WORKER_BOT_USERNAME: adapter.worker,
      AGENT_PROVIDER: 'anthropic',
      AGENT_MODEL: 'claude-test',
      ANTHROPIC_API_KEY: LLM_KEY,
      ANTHROPIC_BASE_URL: llm.url,
      WORKSPACE_BASE_DIR: path.join(root, 'workspaces'),
      CLEANUP_INTERVAL_HOURS: '0',
      HOME: root,
      ...platformEnv,
    };
    server = await startServe(env);
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await llm?.close();
    await adapter.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('ignores a user outside the allow list', async () => {
    const before = await repo.head();
    const res = await adapter.reply(server.url, ids.calc, mention(), 'mallory');
    expect(res.json.status).not.toBe('accepted');
    await new Promise((r) => setTimeout(r, 500));
    expect(adapter.botReplies(ids.calc)).toEqual([]);
    expect(await repo.head()).toBe(before);
  });

  it('applies a multi-line suggestion on a CRLF file without a final newline, byte for byte', async () => {
    const before = await repo.head();
    const reply = await apply('win');
    const after = await repo.head();
    expect(after).not.toBe(before);
    expect((await repo.show('src/win.ts')).toString('binary')).toBe(
      'export const a = 1;\r\nexport function f(x: number) {\r\n  return x + 1;\r\n}',
    );
    expect(reply).toBe(appliedText(after));
    expect(adapter.resolved(ids.win)).toBe(true);
    expect(await repo.log('%B', after)).toBe(
      `Add spaces around the operator.\n\nRequested by ${adapter.requester}\n\n`,
    );
    expect(await repo.changed(before, after)).toBe('src/win.ts\n');
    expect(llm.requests).toEqual([]); // no agent run, no tokens
  });

  it('replaces a range with fewer lines', async () => {
    expect(await apply('calc')).toMatch(/^Applied this suggestion in commit /);
    expect((await repo.show('src/calc.ts')).toString()).toBe(
      'export function g(n: number) {\n  const r = n * 2;\n  return r;\n}\n',
    );
  });

  it('replaces exactly the lines of the thread, a leading blank line included', async () => {
    expect(await apply('gap')).toMatch(/^Applied this suggestion in commit /);
    expect((await repo.show('src/gap.ts')).toString()).toBe('a();\n  b();\nc();\n');
  });

  it('refuses a finding on the old side with the reason and commits nothing', async () => {
    const before = await repo.head();
    expect(await apply('left')).toContain('Nothing was committed: it is on the old side of the diff');
    expect(await repo.head()).toBe(before);
    expect(adapter.resolved(ids.left)).toBe(false);
  });

  it('commits nothing when the finding no longer matches the code', async () => {
    const before = await repo.head();
    expect(await apply('stale')).toContain('no longer applies to the current code');
    expect(await repo.head()).toBe(before);
    expect(adapter.resolved(ids.stale)).toBe(false);
  });

  it('runs the WORKER agent on a finding without a suggestion, then commits, replies, resolves', async () => {
    llm.setScript([
      {
        toolCalls: [
          {
            name: 'Edit',
            input: {
              file_path: 'src/plain.ts',
              old_string: 'export const limit = 10;',
              new_string: 'export const limit = Number(process.env.LIMIT ?? 10);',
            },
          },
        ],
      },
      { text: 'Made the limit configurable.' },
    ]);
    const before = await repo.head();
    const reply = await apply('plain', 'and read it from LIMIT');
    const after = await repo.head();
    expect(await repo.log('%P', after)).toBe(`${before}\n`);
    expect(reply).toContain('Made the limit configurable.');
    expect(reply).toContain(`Pushed commit ${after}`);
    expect(adapter.resolved(ids.plain)).toBe(true);
    expect(llm.requests).toHaveLength(2); // one agent run: the edit, then the summary
    const prompt = llm.requests[0]!.messages.map((m) => m.text).join('\n');
    expect(prompt).toContain('The limit should be configurable.');
    expect(prompt).toContain('src/plain.ts');
    expect(prompt).toContain('and read it from LIMIT');
    expect((await repo.show('src/plain.ts')).toString()).toBe(
      'export const limit = Number(process.env.LIMIT ?? 10);\n',
    );
    expect(await repo.log('%s', after)).toBe('The limit should be configurable.\n');
  });

  it('says the thread could not be resolved when the platform refuses, and why', async () => {
    const restore = adapter.refuseResolution();
    try {
      const before = await repo.head();
      const reply = await apply('retry');
      const after = await repo.head();
      expect(after).not.toBe(before);
      expect((await repo.show('src/retry.ts')).toString()).toBe('export const retries = config.retries;\n');
      expect(reply).toContain(`Applied this suggestion in commit ${after} on \`feature\``);
      expect(reply).toMatch(adapter.refusedReason);
      expect(reply).not.toContain('resolved this thread');
      expect(adapter.resolved(ids.retry)).toBe(false);
      for (const text of adapter.botTexts()) expect(text).not.toContain(env.ANTHROPIC_API_KEY);
    } finally {
      restore();
    }
  });

  it('apply all: every open suggestion in one commit, overlapping, stale and old-side ones listed as skipped', async () => {
    const before = await repo.head();
    const res = await adapter.comment(server.url, mention('all'), 'alice');
    expect(res.json).toMatchObject({ status: 'accepted' });
    const reply = await waitFor(
      () => adapter.botTexts().find((t) => t.includes('Applied 2 suggestions')),
      60_000,
      'apply all reply',
    );
    const after = await repo.head();
    expect(await repo.log('%P', after)).toBe(`${before}\n`);
    expect((await repo.show('src/many.ts')).toString()).toBe('one\nTWO\nthree\nfour\nFIVE\nFIVE-B\nsix\n');
    expect(reply).toContain(`commit ${after}`);
    expect(reply).toMatch(/`src\/many\.ts:3`: its lines overlap another finding/);
    expect(reply).toMatch(/`src\/stale\.ts:1`: its lines changed since it was posted/);
    expect(reply).toMatch(/`src\/old\.ts:1`: it is on the old side/);
    expect([adapter.resolved(ids.manyA), adapter.resolved(ids.manyB), adapter.resolved(ids.manyC)]).toEqual([
      true,
      false,
      true,
    ]);
  });

  it('counts each applied finding once as addressed in /metrics', async () => {
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    // win, calc, gap, plain, retry, manyA, manyC.
    expect(metrics).toContain(
      `reviewbot_findings_total{platform="${adapter.platform}",severity="P1",outcome="addressed"} 7`,
    );
  });

  it('reviewbot stats counts the applied findings as addressed', async () => {
    const result = await runCli(
      ['stats', `${adapter.platform}:${adapter.repoFullName}`, '--json'],
      env,
      60_000,
    );
    expect(result.stderr).not.toMatch(/reviewbot: (?!warning)/);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as { bySeverity: Record<string, Record<string, number>> };
    // Applied and resolved: win, calc, gap, plain, manyA, manyC; retry where the platform
    // marked it addressed instead.
    expect(report.bySeverity.P1).toMatchObject({ posted: 10, resolved: 0, dismissed: 0 });
    expect(report.bySeverity.P1!.addressed).toBe(adapter.refusedCountsAddressed ? 7 : 6);
    expect(adapter.violations()).toEqual([]);
  });
});
