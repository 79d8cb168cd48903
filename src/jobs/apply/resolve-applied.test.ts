import { describe, expect, it } from 'vitest';
import { AuthError, PlatformError } from '../../errors.js';
import type { Platform, ReviewComment, ReviewThread } from '../../platforms/types.js';
import type { EarlierFinding } from '../../review/memory/state.js';
import { silentLogger } from '../../logger.js';
import { SecretMasker } from '../../secrets.js';
import type { JobContext } from '../job-context.js';
import { appliedReply, applyAllReply } from './apply-text.js';
import { refusalReason, settleApplied } from './resolve-applied.js';

const TOKEN = 'glpat-resolveUnitTokenNeverShown01';

function finding(id: string, severity: 'P0' | 'P1' | 'P2' | 'P3', line: number): EarlierFinding {
  const thread: ReviewThread = {
    id,
    path: 'src/a.ts',
    line,
    resolved: false,
    outdated: false,
    authorUsername: 'bot',
    body: `Finding ${id}.`,
  };
  return { thread, marker: { fp: '0123456789abcdef', side: 'RIGHT', n: 1, severity } };
}

const comment = { repoFullName: 'acme/widgets', prNumber: 7 } as ReviewComment;
const pr = { headBranch: 'feature' } as Parameters<typeof appliedReply>[1];

function context() {
  const counted: Array<[string, string, string, number]> = [];
  const masker = new SecretMasker();
  masker.add(TOKEN);
  const ctx = {
    metrics: { findings: (...args: [string, string, string, number]) => counted.push(args) },
    logger: silentLogger(),
    masker,
  } as unknown as JobContext;
  return { ctx, counted };
}

describe('settleApplied', () => {
  it('counts each applied finding once as addressed, by severity, and resolves its thread', async () => {
    const resolved: string[] = [];
    const platform = {
      name: 'gitlab',
      resolveThread: (_r: string, _n: number, id: string) => {
        resolved.push(id);
        return Promise.resolve();
      },
    } as unknown as Platform;
    const { ctx, counted } = context();
    const open = await settleApplied(
      platform,
      comment,
      [finding('a', 'P1', 1), finding('b', 'P1', 2), finding('c', 'P3', 3)],
      ctx,
    );
    expect(open).toEqual([]);
    expect(resolved).toEqual(['a', 'b', 'c']);
    expect(counted).toEqual([
      ['gitlab', 'P1', 'addressed', 2],
      ['gitlab', 'P3', 'addressed', 1],
    ]);
  });

  it('reports the threads the platform refused or marked, with a reason free of server text', async () => {
    const platform = {
      name: 'gitea',
      resolveThread: (_r: string, _n: number, id: string) => {
        if (id === 'a') return Promise.resolve({ resolved: false, reason: 'no API here' });
        return Promise.reject(new PlatformError(`403 Forbidden for token ${TOKEN}`, { status: 403 }));
      },
    } as unknown as Platform;
    const { ctx, counted } = context();
    const open = await settleApplied(platform, comment, [finding('a', 'P2', 1), finding('b', 'P2', 2)], ctx);
    expect(open.map((u) => [u.finding.thread.id, u.reason])).toEqual([
      ['a', 'no API here'],
      ['b', "the bot's account lacks the permission to resolve threads on this repository"],
    ]);
    expect(JSON.stringify(open)).not.toContain(TOKEN);
    // Applied is addressed, resolved or not.
    expect(counted).toEqual([['gitea', 'P2', 'addressed', 2]]);
  });
});

describe('refusalReason', () => {
  it('names the refusal by its kind and status only', () => {
    expect(refusalReason(new AuthError(`bad ${TOKEN}`))).toBe("the platform rejected the bot's credentials");
    expect(refusalReason(new PlatformError('x', { status: 404 }))).toMatch(/did not find the thread/);
    expect(refusalReason(new PlatformError('x', { status: 500 }))).toBe('the platform answered HTTP 500');
    expect(refusalReason(new Error(TOKEN))).toBe('the platform could not be reached');
  });
});

describe('apply replies', () => {
  it('say the thread was resolved only when it was', () => {
    expect(appliedReply('abc', pr)).toBe(
      'Applied this suggestion in commit abc on `feature`, and resolved this thread.',
    );
    expect(appliedReply('abc', pr, 'no API here')).toBe(
      'Applied this suggestion in commit abc on `feature`. This thread could not be resolved: no API here.',
    );
    const a = finding('a', 'P2', 4);
    expect(applyAllReply([a], [], 'abc', pr, [{ finding: a, reason: 'no API here' }])).toBe(
      'Applied 1 suggestion in commit abc on `feature`:\n- `src/a.ts:4`: Finding a.\n\n' +
        'These threads could not be resolved:\n- `src/a.ts:4`: no API here',
    );
  });
});
