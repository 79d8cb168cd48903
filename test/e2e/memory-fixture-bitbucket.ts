/**
 * The fake Bitbucket Cloud as a review-memory driver (see `memory-fixture.ts`): pull requests live
 * in `acme/<repo>`; a thread is a top-level inline comment with its replies, read from what the
 * fake stored, independently of the platform code. Bodies are shown with the trailing marker in the
 * project's HTML-comment form (Bitbucket holds it as a Markdown link reference definition).
 */
import { startFakeBitbucketCloud } from '../support/fake-bitbucket-cloud/index.js';
import { lastGate, type BotThread, type MemoryDriver, type MemoryRepo } from './memory-fixture.js';

const TOKEN = 'bb-memoryE2eTokenThatMustNeverLeak0123';
const LOGIN = 'reviewbot-bb';

/** `raw` with its trailing `[//]: # (reviewbot:…)` shown as `<!-- reviewbot:… -->`. */
function shown(raw: string): string {
  return raw.replace(/\[\/\/\]: # \((reviewbot:[^\n()]*)\)\s*$/, '<!-- $1 -->');
}

/** A driver on a fake Bitbucket Cloud. */
export async function bitbucketDriver(): Promise<MemoryDriver> {
  const fake = await startFakeBitbucketCloud({ token: TOKEN, nickname: LOGIN });
  const repoOf = new Map<number, string>();
  const comments = (n: number) => fake.comments(repoOf.get(n) ?? '', n);
  return {
    name: 'bitbucket',
    env: { BITBUCKET_TOKEN: TOKEN, BITBUCKET_API_URL: fake.apiUrl },
    ref: (n) => `${repoOf.get(n)}#${n}`,
    addPullRequest(repo: MemoryRepo, number: number, fullName: string) {
      repoOf.set(number, fullName);
      fake.addPullRequest({
        repo: fullName,
        id: number,
        bareRepoPath: repo.bare,
        headBranch: 'feature',
        baseBranch: 'main',
        title: 'Calc',
      });
      return Promise.resolve();
    },
    botThreads(number): BotThread[] {
      return comments(number)
        .filter((c) => c.inline && c.parentId === undefined && c.author === LOGIN)
        .map((c) => ({ path: c.inline?.path ?? '', body: shown(c.raw), resolved: c.resolved }));
    },
    botBodies(number) {
      return comments(number)
        .filter((c) => !c.inline && c.author === LOGIN)
        .map((c) => shown(c.raw));
    },
    gate(_number, sha) {
      const all = fake.statuses.filter((s) => s.key === 'reviewbot-verdict' && s.commit === sha);
      return lastGate(all, (s) => s);
    },
    violations: () => fake.violations,
    close: () => fake.close(),
  };
}
