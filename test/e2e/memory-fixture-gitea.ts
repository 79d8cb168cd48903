/**
 * The fake Gitea as a review-memory driver (see `memory-fixture.ts`): pull requests live in
 * `acme/<repo>`; a thread is a Gitea conversation (the code comments on one file and signed line),
 * counted here from what the fake stored, independently of the platform code. `resolveEndpoint`
 * false serves a Gitea before 1.26 (resolve answers 404): the bot then replies "addressed", which
 * the driver counts as resolved only when the reply carries the marker.
 */
import { startFakeGitea, type FakeGitea, type StoredCodeComment } from '../support/fake-gitea/index.js';
import { lastGate, type BotThread, type MemoryDriver, type MemoryRepo } from './memory-fixture.js';

const GITEA_TOKEN = 'gitea-memoryE2eTokenThatMustNeverLeak01';
const GITEA_LOGIN = 'reviewbot-gitea';

/** Conversations of pull request `number`, oldest first, each oldest comment first. */
function conversations(fake: FakeGitea, number: number): StoredCodeComment[][] {
  const groups = new Map<string, StoredCodeComment[]>();
  for (const c of fake.codeComments.filter((x) => x.index === number)) {
    const key = `${c.repo}\n${c.path}\n${c.line}`;
    groups.set(key, [...(groups.get(key) ?? []), c]);
  }
  return [...groups.values()];
}

/** A driver on a fake Gitea with (1.26+) or without the resolve endpoint. */
export async function giteaDriver(resolveEndpoint: boolean): Promise<MemoryDriver> {
  const fake = await startFakeGitea({ token: GITEA_TOKEN, username: GITEA_LOGIN, resolveEndpoint });
  const repoOf = new Map<number, string>();
  return {
    name: 'gitea',
    env: { GITEA_TOKEN, GITEA_URL: fake.url },
    ref: (n) => `${repoOf.get(n)}#${n}`,
    addPullRequest(repo: MemoryRepo, number: number, fullName: string) {
      repoOf.set(number, fullName);
      fake.addPullRequest({
        repo: fullName,
        index: number,
        bareRepoPath: repo.bare,
        headBranch: 'feature',
        baseBranch: 'main',
        title: 'Calc',
      });
      return Promise.resolve();
    },
    botThreads(number): BotThread[] {
      return conversations(fake, number)
        .filter((group) => group[0]?.author === GITEA_LOGIN)
        .map((group) => ({
          path: group[0]!.path,
          body: group[0]!.body,
          resolved:
            group[0]!.resolver !== null ||
            (!resolveEndpoint &&
              group.some((c) => c.author === GITEA_LOGIN && c.body.includes('<!-- reviewbot:addressed -->'))),
        }));
    },
    botBodies(number) {
      const reviews = fake.reviews.filter((r) => r.index === number && r.author === GITEA_LOGIN && r.body);
      const comments = fake.comments.filter((c) => c.index === number && c.author === GITEA_LOGIN);
      return [
        ...reviews.map((r) => ({ at: r.submittedAt, body: r.body })),
        ...comments.map((c) => ({ at: c.createdAt, body: c.body })),
      ]
        .sort((a, b) => a.at.localeCompare(b.at))
        .map((x) => x.body);
    },
    gate(number, sha) {
      const all = fake.statuses.filter(
        (s) => s.repo === repoOf.get(number) && s.context === 'reviewbot/verdict' && s.sha === sha,
      );
      return lastGate(all, (s) => s);
    },
    violations: () => fake.violations,
    close: () => fake.close(),
  };
}
