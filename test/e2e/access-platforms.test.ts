/**
 * End to end, allow lists tied to a platform: one `reviewbot serve` (the built CLI) with GitHub and
 * GitLab enabled, `ALLOWED_USERS=github:alice,gitlab:bob,carol` and repositories named per
 * platform. alice may use the bot on GitHub only, bob on GitLab only, carol (a bare entry) on both;
 * start-up warns that the bare entry applies on every platform. The comments are learning commands
 * (`forget`), so an accepted one is answered without a model or a workspace.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import { githubLearnings, gitlabLearnings, type LearningsDriver } from './learnings-fixture.js';
import { createMemoryRepo, LLM_KEY, tempRoot } from './memory-fixture.js';
import { waitFor } from './serve-fixture.js';

const FORGET = '@review-bot forget 0000000a';
const ANSWER = 'There is no learning `0000000a`';

describe('allow lists tied to a platform (GitHub and GitLab on one server)', () => {
  let root: ReturnType<typeof tempRoot>;
  let github: LearningsDriver;
  let gitlab: LearningsDriver;
  let server: ServeProcess;

  beforeAll(async () => {
    root = tempRoot();
    const repo = createMemoryRepo(root.path, 'acme/calc');
    repo.push1();
    github = await githubLearnings();
    gitlab = await gitlabLearnings();
    await github.addPullRequest(repo, 3);
    await gitlab.addPullRequest(repo, 3);
    server = await startServe({
      ...github.env,
      ...gitlab.env,
      REVIEWER_BOT_USERNAME: 'review-bot',
      ALLOWED_USERS: 'github:alice,gitlab:bob,carol',
      ALLOWED_REPOS: `${github.scope},${gitlab.scope}`,
      AGENT_PROVIDER: 'anthropic',
      AGENT_MODEL: 'claude-test',
      ANTHROPIC_API_KEY: LLM_KEY,
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
      WORKSPACE_BASE_DIR: `${root.path}/workspaces`,
      CLEANUP_INTERVAL_HOURS: '0',
      HOME: root.path,
    });
  });
  afterAll(async () => {
    await server?.stop();
    await github?.close();
    await gitlab?.close();
    root?.remove();
  });

  it('warns once at start-up about the bare entry, naming it and not the tied ones', async () => {
    const line = await server.waitForLog((l) =>
      String(l.msg).includes('allow-list entries without a platform'),
    );
    expect(line.level).toBe(40);
    expect(line.msg).toContain('access.allowed_users: carol)');
    expect(line.msg).not.toContain('access.allowed_repos');
    expect(server.logs.filter((l) => String(l.msg).includes('allow-list entries'))).toHaveLength(1);
  });

  it('github:alice may use the bot on GitHub, not on GitLab', async () => {
    expect(await github.comment(server.url, 3, FORGET, 'alice')).toEqual({ status: 'accepted' });
    await waitFor(() => github.botBodies(3).find((b) => b.includes(ANSWER)), 30_000, 'GitHub answer');
    expect(await gitlab.comment(server.url, 3, FORGET, 'alice')).toEqual({
      status: 'ignored',
      reason: 'user alice is not allowed',
    });
  });

  it('gitlab:bob may use the bot on GitLab, not on GitHub; carol (bare) on both', async () => {
    expect(await github.comment(server.url, 3, FORGET, 'bob')).toEqual({
      status: 'ignored',
      reason: 'user bob is not allowed',
    });
    expect(await gitlab.comment(server.url, 3, FORGET, 'bob')).toEqual({ status: 'accepted' });
    await waitFor(() => gitlab.botBodies(3).find((b) => b.includes(ANSWER)), 30_000, 'GitLab answer');
    expect(await gitlab.comment(server.url, 3, '@review-bot forget 0000000b', 'carol')).toEqual({
      status: 'accepted',
    });
    expect(await github.comment(server.url, 3, '@review-bot forget 0000000c', 'carol')).toEqual({
      status: 'accepted',
    });
    await waitFor(
      () => github.botBodies(3).find((b) => b.includes('There is no learning `0000000c`')),
      30_000,
      "carol's GitHub answer",
    );
    expect(github.violations()).toEqual([]);
    expect(gitlab.violations()).toEqual([]);
  });
});
