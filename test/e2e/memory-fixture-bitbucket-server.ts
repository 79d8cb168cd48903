/**
 * The fake Bitbucket Data Center as a review-memory driver (see `memory-fixture.ts`): pull requests
 * live in `acme/<repo>` (project key `acme`); a thread is a root comment with an anchor, read from
 * what the fake stored, independently of the platform code. Bodies are shown with the trailing
 * marker in the project's HTML-comment form (Data Center holds it as a Markdown link reference
 * definition).
 */
import { startFakeBitbucketServer } from '../support/fake-bitbucket-server/index.js';
import { lastGate, type BotThread, type MemoryDriver, type MemoryRepo } from './memory-fixture.js';

const TOKEN = 'bbs-memoryE2eTokenThatMustNeverLeak0123';
const LOGIN = 'reviewbot-dc';

/** `text` with its trailing `[//]: # (reviewbot:…)` shown as `<!-- reviewbot:… -->`. */
function shown(text: string): string {
  return text.replace(/\[\/\/\]: # \((reviewbot:[^\n()]*)\)\s*$/, '<!-- $1 -->');
}

/** A driver on a fake Bitbucket Data Center. */
export async function bitbucketServerDriver(): Promise<MemoryDriver> {
  const fake = await startFakeBitbucketServer({ token: TOKEN, username: LOGIN });
  const repoOf = new Map<number, string>();
  const comments = (n: number) => fake.comments(repoOf.get(n) ?? '', n);
  return {
    name: 'bitbucket-server',
    env: { BITBUCKET_SERVER_TOKEN: TOKEN, BITBUCKET_SERVER_URL: fake.url },
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
        .filter((c) => c.anchor && c.parentId === undefined && c.author === LOGIN)
        .map((c) => ({ path: c.anchor?.path ?? '', body: shown(c.text), resolved: c.threadResolved }));
    },
    botBodies(number) {
      return comments(number)
        .filter((c) => !c.anchor && c.parentId === undefined && c.author === LOGIN)
        .map((c) => shown(c.text));
    },
    gate(_number, sha) {
      const all = fake.statuses.filter((s) => s.key === 'reviewbot-verdict' && s.commit === sha);
      return lastGate(all, (s) => s);
    },
    violations: () => fake.violations,
    close: () => fake.close(),
  };
}
