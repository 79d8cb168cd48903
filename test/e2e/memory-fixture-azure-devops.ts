/**
 * The fake Azure DevOps as a review-memory driver (see `memory-fixture.ts`): pull requests live in
 * project `acme`, repository `<repo>`; a thread is one the bot started with a `threadContext`, read
 * from what the fake stored, independently of the platform code ("resolved" = any status but
 * active/pending). Bodies are shown with the trailing marker in the project's HTML-comment form
 * (Azure DevOps holds it as a Markdown link reference definition).
 */
import { startFakeAzureDevOps } from '../support/fake-azure-devops/index.js';
import { lastGate, type BotThread, type MemoryDriver, type MemoryRepo } from './memory-fixture.js';

const TOKEN = 'ado-memoryE2ePatThatMustNeverLeak0123';

/** `raw` with its trailing `[//]: # (reviewbot:…)` shown as `<!-- reviewbot:… -->`. */
function shown(raw: string): string {
  return raw.replace(/\[\/\/\]: # \((reviewbot:[^\n()]*)\)\s*$/, '<!-- $1 -->');
}

/** A driver on a fake Azure DevOps. */
export async function azureDevOpsDriver(): Promise<MemoryDriver> {
  const fake = await startFakeAzureDevOps({ token: TOKEN });
  const repoOf = new Map<number, string>();
  const threads = (n: number) => {
    const [project = '', repo = ''] = (repoOf.get(n) ?? '').split('/');
    return fake.threads(project, repo, n).filter((t) => t.comments[0]?.author === fake.botName);
  };
  return {
    name: 'azure-devops',
    env: { AZURE_DEVOPS_TOKEN: TOKEN, AZURE_DEVOPS_URL: fake.collectionUrl },
    ref: (n) => `${repoOf.get(n)}#${n}`,
    addPullRequest(repo: MemoryRepo, number: number, fullName: string) {
      repoOf.set(number, fullName);
      const [project = '', name = ''] = fullName.split('/');
      fake.addPullRequest({
        project,
        repo: name,
        id: number,
        bareRepoPath: repo.bare,
        headBranch: 'feature',
        baseBranch: 'main',
        title: 'Calc',
      });
      return Promise.resolve();
    },
    botThreads(number): BotThread[] {
      return threads(number)
        .filter((t) => t.threadContext)
        .map((t) => ({
          path: String(t.threadContext?.filePath ?? '').replace(/^\//, ''),
          body: shown(t.comments[0]?.content ?? ''),
          resolved: t.status !== 'active' && t.status !== 'pending',
        }));
    },
    botBodies(number) {
      return threads(number)
        .filter((t) => !t.threadContext)
        .flatMap((t) => t.comments.filter((c) => c.author === fake.botName).map((c) => shown(c.content)));
    },
    // A pull request status belongs to an iteration, not a commit: the latest verdict status.
    gate(number) {
      const [project = '', repo = ''] = (repoOf.get(number) ?? '').split('/');
      const all = fake
        .statuses(project, repo, number)
        .filter((s) => s.context.genre === 'reviewbot' && s.context.name === 'verdict');
      return lastGate(all, (s) => s);
    },
    violations: () => fake.violations,
    close: () => fake.close(),
  };
}
