/**
 * `collectStats` against the fake GitLab over real HTTP, with the repository's learnings: a `learn`
 * written in a finding's thread (stored with the finding's path as an exact glob and its
 * fingerprint) and a stored dismissal count the finding as dismissed; a learning about other code
 * does not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Learning } from '../learnings/index.js';
import { escapeGlob } from '../patterns/glob-match.js';
import {
  createGitLabKit,
  IID,
  PROJECT,
  type GitLabKit,
} from '../platforms/gitlab/gitlab-test-kit.test-helper.js';
import { renderFindingMarker } from '../review/memory/markers.js';
import { collectStats } from './collect.js';

const BOT = 'review-bot';
const fp = (n: number) => `${'0'.repeat(15)}${n}`;
const learning = (fields: Partial<Learning>): Learning => ({
  id: '0000000a',
  text: 'Bounds here are inclusive.',
  author: 'alice',
  createdAt: '2026-01-01T00:00:00.000Z',
  source: 'command',
  ...fields,
});

describe('collectStats with learnings', () => {
  let kit: GitLabKit;
  beforeAll(async () => {
    kit = await createGitLabKit();
    // Four findings of the bot on odd file names (a learn's glob escapes them).
    for (const n of [1, 2, 3, 4]) {
      kit.fake.addNote({
        project: PROJECT,
        iid: IID,
        author: BOT,
        body: `Finding ${n}.\n\n${renderFindingMarker({ fp: fp(n), side: 'RIGHT', n: 1, severity: 'P2' })}`,
        position: { newPath: `src/[draft] file${n}.ts`, newLine: 1 },
      });
    }
  });
  afterAll(async () => {
    await kit?.close();
  });

  it('counts a finding a learn in its thread or a stored dismissal names as dismissed', async () => {
    const report = await collectStats({
      platform: kit.platform(),
      repoFullName: PROJECT,
      since: new Date(Date.now() - 86_400_000),
      maxPrs: 10,
      botNames: new Set([BOT]),
      allowedUsers: ['alice'],
      learnings: [
        // `learn` in finding 1's thread: the path as an exact glob, the fingerprint.
        learning({ path: escapeGlob('src/[draft] file1.ts'), fingerprint: fp(1) }),
        // A thumbs-down stored by a review: the literal path.
        learning({ id: '0000000b', source: 'dismissal', path: 'src/[draft] file2.ts', fingerprint: fp(2) }),
        // About other code of the same file, and a learning without a finding.
        learning({ id: '0000000c', path: escapeGlob('src/[draft] file3.ts'), fingerprint: fp(9) }),
        learning({ id: '0000000d', path: 'src/**' }),
      ],
    });
    expect(report.bySeverity.P2).toEqual({
      posted: 4,
      addressed: 0,
      dismissed: 2,
      resolved: 0,
      openAtMerge: 0,
    });
    expect(report.actedOnRate).toBe(0);
    expect(kit.fake.violations).toEqual([]);
  });
});
