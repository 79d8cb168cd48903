/**
 * The GitLab platform's write operations against the fake GitLab, which refuses diff positions the
 * way GitLab does: reviews as diff discussions plus one note, replies, award emoji. Expected
 * positions and line codes were worked out by hand from the scenario's diff (see git-scenarios.ts):
 * line codes use GitLab's diff-parser counters, so an added line carries the next old line number.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitToBranch, createDiffScenario, SCENARIO_PATHS } from '../../../test/support/git-fixtures.js';
import type { InlineComment } from '../types.js';
import { createGitLabKit, IID, PROJECT, type GitLabKit } from './gitlab-test-kit.test-helper.js';

const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');
const P = SCENARIO_PATHS;

function comment(path: string, side: 'RIGHT' | 'LEFT', line: number, startLine?: number): InlineComment {
  return {
    path,
    side,
    line,
    ...(startLine ? { startLine } : {}),
    body: `note on ${path}:${startLine ?? ''}-${line} ${side}`,
  };
}

/** Comment → the position GitLab must store for it (hand-computed). */
const cases: Array<[string, InlineComment, Record<string, unknown>]> = [
  ['added line', comment(P.modified, 'RIGHT', 3), { new_line: 3, old_line: null, line_range: null }],
  ['removed line', comment(P.modified, 'LEFT', 56), { old_line: 56, new_line: null }],
  ['context line from the right', comment(P.modified, 'RIGHT', 56), { old_line: 57, new_line: 56 }],
  ['context line from the left', comment(P.modified, 'LEFT', 58), { old_line: 58, new_line: 57 }],
  [
    'range of context and added lines',
    comment(P.modified, 'RIGHT', 59, 56),
    {
      old_line: null,
      new_line: 59,
      line_range: {
        start: { line_code: `${sha1(P.modified)}_57_56`, type: 'old', old_line: 57, new_line: 56 },
        end: { line_code: `${sha1(P.modified)}_59_59`, type: 'new', old_line: null, new_line: 59 },
      },
    },
  ],
  [
    'range in a new file',
    comment(P.added, 'RIGHT', 3, 1),
    {
      old_path: P.added,
      new_path: P.added,
      new_line: 3,
      line_range: {
        start: { line_code: `${sha1(P.added)}_0_1`, type: 'new', old_line: null, new_line: 1 },
        end: { line_code: `${sha1(P.added)}_0_3`, type: 'new', old_line: null, new_line: 3 },
      },
    },
  ],
  [
    'range in a deleted file',
    comment(P.removed, 'LEFT', 3, 1),
    {
      old_line: 3,
      new_line: null,
      line_range: {
        start: { line_code: `${sha1(P.removed)}_1_0`, type: 'old', old_line: 1, new_line: null },
        end: { line_code: `${sha1(P.removed)}_3_0`, type: 'old', old_line: 3, new_line: null },
      },
    },
  ],
  [
    'renamed file',
    comment(P.renamed, 'RIGHT', 10),
    { old_path: P.renamedFrom, new_path: P.renamed, new_line: 10 },
  ],
  ['file without final newline', comment(P.noNewline, 'RIGHT', 4), { new_line: 4, old_line: null }],
];

describe('GitLab platform: posting', () => {
  let kit: GitLabKit;
  beforeAll(async () => {
    kit = await createGitLabKit();
  });
  afterAll(async () => {
    await kit?.close();
  });

  it('posts one diff discussion per comment at GitLab positions, then one note with the rest', async () => {
    const refs = await kit.fake.diffRefs(PROJECT, IID);
    const offDiff = comment(P.modified, 'RIGHT', 30);
    const posted = await kit.platform().submitReview(PROJECT, IID, {
      body: 'Two points below.',
      commitSha: kit.scenario.headSha,
      comments: [...cases.map(([, c]) => c), offDiff],
    });
    expect(kit.fake.violations).toEqual([]);
    const diffNotes = kit.fake.diffNotes;
    expect(diffNotes).toHaveLength(cases.length);
    for (const [i, [name, c, expected]] of cases.entries()) {
      const note = diffNotes[i]!;
      expect(note.body, name).toBe(c.body);
      expect(note.author).toBe('review-bot');
      expect(note.position, name).toMatchObject({
        ...refs,
        position_type: 'text',
        new_path: c.path,
        ...expected,
      });
    }
    const last = kit.fake.notes.at(-1)!;
    expect(last.type).toBeNull();
    expect(last.body).toMatch(/^Two points below\.\n\n### Comments that could not be placed on the diff\n\n/);
    expect(last.body).toContain(`\`${P.modified}:30\` (RIGHT; line 30 is not on the RIGHT side of the diff)`);
    expect(posted).toEqual({
      id: String(last.id),
      url: `${kit.fake.url}/${PROJECT}/-/merge_requests/${IID}#note_${last.id}`,
    });
    // The posted comments read back as the bot's own, at the lines they were made on.
    const mine = (await kit.platform().listComments(PROJECT, IID)).filter((x) => x.kind === 'review_comment');
    expect(mine.map((x) => [x.path, x.line, x.side])).toContainEqual([P.modified, 3, 'RIGHT']);
    expect(mine.map((x) => [x.path, x.line, x.side])).toContainEqual([P.modified, 56, 'LEFT']);
  });

  it('lists a comment GitLab refuses (400) in the note and still posts the others', async () => {
    const before = kit.fake.diffNotes.length;
    kit.fake.failNext('POST', /\/discussions$/, 400, {
      message: `400 Bad request - Note {:line_code=>["can't be blank", "must be a valid line code"]}`,
    });
    await kit.platform().submitReview(PROJECT, IID, {
      body: 'Second review.',
      commitSha: kit.scenario.headSha,
      comments: [comment(P.modified, 'RIGHT', 3), comment(P.added, 'RIGHT', 2)],
    });
    expect(kit.fake.diffNotes.length - before).toBe(1);
    expect(kit.fake.diffNotes.at(-1)?.position).toMatchObject({ new_path: P.added, new_line: 2 });
    expect(kit.fake.notes.at(-1)?.body).toContain(`\`${P.modified}:3\` (RIGHT; GitLab refused the position)`);
  });

  it('positions a review on the diff version it was made on after the branch moved', async () => {
    const moved = createDiffScenario(path.join(kit.root, 'moved'), 'acme/moved');
    await kit.fake.addMergeRequest({
      project: 'acme/platform/moved',
      iid: 1,
      bareRepoPath: moved.bareRepoPath,
      sourceBranch: 'feature',
      targetBranch: 'main',
      title: 'Moving',
    });
    const reviewed = await kit.fake.diffRefs('acme/platform/moved', 1);
    // A push inserts two lines at the top of the modified file: every later line number shifts.
    commitToBranch(moved.bareRepoPath, {
      branch: 'feature',
      message: 'push during the review',
      changes: { write: { [P.modified]: `// a\n// b\nexport const v1 = 1;\n` } },
    });
    await kit.platform().submitReview('acme/platform/moved', 1, {
      body: 'Reviewed the first push.',
      commitSha: moved.headSha,
      comments: [comment(P.modified, 'RIGHT', 59)],
    });
    expect(kit.fake.violations).toEqual([]);
    const note = kit.fake.diffNotes.at(-1)!;
    expect(note.project).toBe('acme/platform/moved');
    expect(note.position).toMatchObject({ ...reviewed, new_path: P.modified, new_line: 59 });
    expect((await kit.fake.diffRefs('acme/platform/moved', 1)).head_sha).not.toBe(moved.headSha);
  });

  it('replies in the discussion when given one, else as a note', async () => {
    const thread = kit.fake.addNote({
      project: PROJECT,
      iid: IID,
      author: 'alice',
      body: '@review-bot why?',
    });
    const platform = kit.platform();
    const inThread = await platform.postReply(
      { repoFullName: PROJECT, prNumber: IID, discussionId: thread.discussionId },
      'Because.',
    );
    const plain = await platform.postReply({ repoFullName: PROJECT, prNumber: IID }, 'Separately.');
    const byId = new Map(kit.fake.notes.map((n) => [String(n.id), n]));
    expect(byId.get(inThread.id)).toMatchObject({ discussion_id: thread.discussionId, body: 'Because.' });
    expect(byId.get(plain.id)?.discussion_id).not.toBe(thread.discussionId);
    expect(inThread.url).toBe(`${kit.fake.url}/${PROJECT}/-/merge_requests/${IID}#note_${inThread.id}`);
  });

  it('posts no quick action: a line the model starts with /merge, /approve or /close stays text; code stays byte-exact', async () => {
    const hostile = [
      'The fix is easy.',
      '/merge',
      '  /approve',
      'Then:\r\n/close',
      '```sh',
      '/usr/bin/env node probe.mjs',
      '```',
    ].join('\n');
    const before = kit.fake.quickActions.length;
    const platform = kit.platform();
    await platform.postReply({ repoFullName: PROJECT, prNumber: IID }, hostile);
    await platform.submitReview(PROJECT, IID, {
      body: `Summary.\n/label ~security`,
      commitSha: kit.scenario.headSha,
      comments: [
        { ...cases[0]![1], body: `Finding.\n/assign @mallory\n\n\`\`\`suggestion:-0+0\n/keep\n\`\`\`` },
      ],
    });
    expect(kit.fake.quickActions.slice(before)).toEqual([]);
    const posted = kit.fake.notes.slice(-3).map((n) => n.body);
    expect(posted.join('\n')).toContain('\u2060/merge');
    expect(posted.join('\n')).toContain('  \u2060/approve');
    expect(posted.join('\n')).toContain('\r\n\u2060/close');
    // Inside code nothing changes: a probe's command, a suggestion's lines.
    expect(posted.join('\n')).toContain('```sh\n/usr/bin/env node probe.mjs\n```');
    expect(posted.join('\n')).toContain('```suggestion:-0+0\n/keep\n```');
    expect(kit.fake.violations).toEqual([]);
  });

  it('awards eyes on the note once, a repeat award being no error', async () => {
    const seeded = kit.fake.addNote({
      project: PROJECT,
      iid: IID,
      author: 'alice',
      body: '@review-bot look',
    });
    const target = {
      repoFullName: PROJECT,
      prNumber: IID,
      commentId: String(seeded.noteId),
      commentType: 'issue_comment' as const,
    };
    const platform = kit.platform();
    await platform.addReaction(target, 'eyes');
    await platform.addReaction(target, 'eyes');
    expect(kit.fake.awards.filter((a) => a.noteId === seeded.noteId)).toEqual([
      expect.objectContaining({ name: 'eyes', user: 'review-bot', project: PROJECT, iid: IID }),
    ]);
  });

  it.each([
    ['one line', 'x = 1', 1, '```suggestion:-0+0\nx = 1\n```'],
    ['three lines', 'a\nb\n', 3, '```suggestion:-2+0\na\nb\n```'],
    ['a fence inside', 'see ```x```', 1, '````suggestion:-0+0\nsee ```x```\n````'],
  ])('renders a suggestion for %s in GitLab syntax', (_name, text, lines, expected) => {
    expect(kit.platform().renderSuggestion(text, lines)).toBe(expected);
  });
});
