/**
 * Pull request iterations (`GET …/pullRequests/{id}/iterations`): each push makes one; the latest
 * (highest id) names the source commit, the target commit and their common commit (the merge
 * base). Its changes (`GET …/iterations/{it}/changes?$compareTo=0`, paged by `$top`/`$skip`, at most
 * 2000 per page: Microsoft Learn, "Pull Request Iteration Changes - Get") give each file the
 * `changeTrackingId` a thread's `pullRequestThreadContext` needs.
 */
import { PlatformError } from '../../errors.js';
import type { AzureClient } from './client.js';
import { toListedChanges, type ListedChange } from './diffs.js';
import type { PlatformCall as AzureCall } from '../http/index.js';
import { splitRepo } from './threads.js';

/** The latest iteration of a pull request. */
export interface LatestIteration {
  id: number;
  /** Head commit of the iteration. */
  sourceSha: string;
  /** Merge base of source and target. */
  commonSha: string;
}

const PAGE = 2000;

/**
 * The latest iteration of pull request `id` of `repo`.
 * @throws PlatformError when the pull request has none.
 */
export async function latestIteration(
  client: AzureClient,
  call: AzureCall,
  repo: string,
  id: number,
): Promise<LatestIteration> {
  const { project, repo: name } = splitRepo(repo);
  const iterations = await call(`list the iterations of ${repo}#${id}`, () =>
    client.send((git) => git.getPullRequestIterations(name, id, project)),
  );
  const latest = [...(iterations ?? [])]
    .filter((i) => typeof i.id === 'number')
    .sort((a, b) => (b.id ?? 0) - (a.id ?? 0))[0];
  if (!latest?.id) throw new PlatformError(`Azure DevOps lists no iteration of pull request ${repo}#${id}`);
  return {
    id: latest.id,
    sourceSha: latest.sourceRefCommit?.commitId ?? '',
    commonSha: latest.commonRefCommit?.commitId ?? '',
  };
}

/** Every changed file of iteration `iteration` of pull request `id`, from the common commit. */
export async function iterationChanges(
  client: AzureClient,
  call: AzureCall,
  repo: string,
  id: number,
  iteration: number,
): Promise<ListedChange[]> {
  const { project, repo: name } = splitRepo(repo);
  const out: ListedChange[] = [];
  for (let skip = 0, n = 0; n < 50; n++) {
    const page = await call(`list the changes of ${repo}#${id}`, () =>
      client.send((git) => git.getPullRequestIterationChanges(name, id, iteration, project, PAGE, skip, 0)),
    );
    const entries = page?.changeEntries ?? [];
    out.push(...toListedChanges(entries));
    if (!page?.nextSkip || entries.length === 0) break;
    skip = page.nextSkip;
  }
  return out;
}
