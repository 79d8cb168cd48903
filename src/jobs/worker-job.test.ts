/**
 * WORKER jobs against the fake GitHub (REST + git smart HTTP, pushes included) and the fake
 * Anthropic API, through the real platform, workspace, API runner and its Edit tool.
 */
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runGitAsync, SCENARIO_PATHS } from '../../test/support/git-fixtures.js';
import { makePayload } from './records.test-helper.js';
import { LLM_KEY, TOKEN, startJobFixture, type JobFixture } from './job-fixture.test-helper.js';
import { runJob } from './run-job.js';

let fx: JobFixture;
beforeEach(async () => {
  fx = await startJobFixture();
});
afterEach(async () => {
  await fx?.close();
});

const editV3 = {
  name: 'Edit',
  input: {
    file_path: SCENARIO_PATHS.modified,
    old_string: 'export const v3 = 300;',
    new_string: 'export const v3 = THREE_HUNDRED;',
  },
};

const pushes = (fx: JobFixture) => fx.github.gitRequests.filter((r) => r.service === 'git-receive-pack');

describe('WORKER job', () => {
  it('edits a file, pushes one commit as the bot and replies in the thread with its SHA', async () => {
    fx.llm.setScript([
      { text: 'Renaming the constant.', toolCalls: [editV3] },
      { text: 'Replaced the literal `300` of `v3` with `THREE_HUNDRED` in src/service.ts.' },
    ]);
    const modified = fx.scenario.files[SCENARIO_PATHS.modified]!;
    const mention = await fx.github.addReviewComment({
      owner: 'acme',
      repo: 'widgets',
      number: 7,
      body: '@rb-worker name the v3 constant\nand keep the rest',
      user: 'alice',
      path: modified.path,
      line: modified.added[0]!,
    });
    const payload = makePayload(
      'worker',
      'name the v3 constant\nand keep the rest',
      fx.comment({
        commentType: 'review_comment',
        commentId: String(mention.id),
        filePath: modified.path,
        line: modified.added[0]!,
      }),
    );
    expect(await runJob(payload, fx.ctx)).toEqual({ status: 'succeeded' });

    const head = await fx.bareGit('rev-parse', 'refs/heads/feature');
    expect(head).not.toBe(fx.scenario.headSha);
    expect(await fx.bareGit('rev-parse', `${head}^`)).toBe(fx.scenario.headSha);
    expect(await fx.bareGit('log', '-1', '--format=%an <%ae>|%s', head)).toBe(
      'rb-worker <rb-worker@users.noreply.reviewbot>|name the v3 constant',
    );
    expect(await fx.bareGit('show', `${head}:${SCENARIO_PATHS.modified}`)).toContain(
      'export const v3 = THREE_HUNDRED;',
    );
    expect(await fx.bareGit('diff', '--name-only', `${head}^`, head)).toBe(SCENARIO_PATHS.modified);
    expect(pushes(fx).some((r) => r.authorized)).toBe(true);

    // The reply: a review-comment reply (the mention came from an inline comment) with summary + SHA.
    const replies = fx.github.requests.filter(
      (r) => r.operationId === 'pulls/create-reply-for-review-comment',
    );
    expect(replies).toHaveLength(1);
    expect(replies[0]!.path).toContain(`/comments/${mention.id}/replies`);
    const body = (replies[0]!.body as { body: string }).body;
    expect(body).toContain('Replaced the literal `300`');
    expect(body).toContain(`Pushed commit ${head} to \`feature\`.`);

    // The agent worked with every WORKER tool, and the request was fenced as data.
    const first = fx.llm.requests[0]!;
    expect(first.toolNames.sort()).toEqual(['Bash', 'Edit', 'Glob', 'Grep', 'Read', 'Write']);
    expect(first.system).toContain('Do not commit, push');
    expect(first.messages[0]!.text).toMatch(
      /<untrusted-data-[0-9a-f]+ kind="request">\nname the v3 constant/,
    );

    // No credential reached the workspace.
    const gitConfig = await readFile(path.join(fx.baseDir, 'github/acme/widgets/pr-7/.git/config'), 'utf8');
    expect(gitConfig).not.toContain(TOKEN);
    expect(fx.logs.join('\n')).not.toContain(TOKEN);
    expect(fx.logs.join('\n')).not.toContain(LLM_KEY);
    expect(fx.github.violations).toEqual([]);
  });

  it('continues the WORKER conversation on the next mention', async () => {
    fx.llm.setScript([{ text: 'Nothing to change yet: which constant?' }, { text: 'Still nothing to do.' }]);
    await runJob(makePayload('worker', 'rename a constant', fx.comment()), fx.ctx);
    await runJob(makePayload('worker', 'the v3 one', fx.comment()), fx.ctx);
    const second = fx.llm.requests[1]!.messages.map((m) => m.role);
    expect(second).toEqual(['user', 'assistant', 'user']);
    expect(fx.llm.requests[1]!.messages[1]!.text).toBe('Nothing to change yet: which constant?');
  });

  it('replies with the summary only and pushes nothing when no file changed', async () => {
    fx.llm.setScript([
      { toolCalls: [{ name: 'Read', input: { file_path: SCENARIO_PATHS.modified, limit: 5 } }] },
      { text: 'The file already uses named constants; no change needed.' },
    ]);
    expect(await runJob(makePayload('worker', 'check the constants', fx.comment()), fx.ctx)).toEqual({
      status: 'succeeded',
    });
    expect(pushes(fx)).toEqual([]);
    expect(await fx.bareGit('rev-parse', 'refs/heads/feature')).toBe(fx.scenario.headSha);
    expect(fx.github.issueComments.map((c) => c.body)).toEqual([
      'The file already uses named constants; no change needed.',
    ]);
  });

  it('folds commits the agent made itself into one bot commit', async () => {
    fx.llm.setScript([
      {
        toolCalls: [
          editV3,
          {
            name: 'Bash',
            input: { command: 'git -c user.name=agent -c user.email=a@b commit -qam "agent commit"' },
          },
        ],
      },
      { text: 'Done.' },
    ]);
    expect(await runJob(makePayload('worker', 'rename v3', fx.comment()), fx.ctx)).toEqual({
      status: 'succeeded',
    });
    const head = await fx.bareGit('rev-parse', 'refs/heads/feature');
    expect(await fx.bareGit('rev-parse', `${head}^`)).toBe(fx.scenario.headSha);
    expect(await fx.bareGit('log', '-1', '--format=%an|%s', head)).toBe('rb-worker|rename v3');
  });

  it('does not push to a fork and says so', async () => {
    // The fork: a copy of the repository under another owner.
    const forkPath = path.join(fx.root, 'fork-repos', 'forker', 'widgets.git');
    await mkdir(path.dirname(forkPath), { recursive: true });
    await runGitAsync(fx.root, ['clone', '--quiet', '--bare', fx.scenario.bareRepoPath, forkPath]);
    await fx.github.addPullRequest({
      owner: 'acme',
      repo: 'widgets',
      number: 8,
      bareRepoPath: fx.scenario.bareRepoPath,
      base: 'main',
      head: 'feature',
      title: 'From a fork',
      headRepo: { owner: 'forker', repo: 'widgets', bareRepoPath: forkPath },
    });
    fx.llm.setScript([{ toolCalls: [editV3] }, { text: 'Renamed v3.' }]);
    const payload = makePayload('worker', 'rename v3', fx.comment({ prNumber: 8 }));
    expect(await runJob(payload, fx.ctx)).toEqual({ status: 'succeeded' });

    expect(pushes(fx)).toEqual([]);
    expect((await runGitAsync(forkPath, ['rev-parse', 'refs/heads/feature'])).trim()).toBe(
      fx.scenario.headSha,
    );
    expect(await fx.bareGit('rev-parse', 'refs/heads/feature')).toBe(fx.scenario.headSha);
    const reply = fx.github.issueComments.at(-1)!;
    expect(reply.body).toContain('Renamed v3.');
    expect(reply.body).toContain('could not be pushed');
    expect(reply.body).toContain('forker/widgets');
    expect(reply.body).toContain('fork branches are not writable');
    expect(reply.body).toContain(`\`${SCENARIO_PATHS.modified}\``);
  });

  it('fails without pushing partial changes when the agent fails mid-task', async () => {
    fx.llm.setScript([
      { toolCalls: [editV3] },
      {
        error: { status: 500, body: { type: 'error', error: { type: 'api_error', message: 'overloaded' } } },
      },
    ]);
    const result = await runJob(makePayload('worker', 'rename v3', fx.comment()), fx.ctx);
    expect(result.status).toBe('failed');
    expect(pushes(fx)).toEqual([]);
    expect(await fx.bareGit('rev-parse', 'refs/heads/feature')).toBe(fx.scenario.headSha);
    const reply = fx.github.issueComments.at(-1)!.body;
    expect(reply).toMatch(/^reviewbot could not finish this task: /);
    expect(reply).not.toContain(LLM_KEY);
    expect(reply).not.toMatch(/\n\s+at /);
  });
});
