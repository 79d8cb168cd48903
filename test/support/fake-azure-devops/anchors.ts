/**
 * Where the fake Azure DevOps lets a new thread anchor, as the service places it. A thread's
 * `pullRequestThreadContext.iterationContext` {`firstComparingIteration`, `secondComparingIteration`}
 * names the comparison its lines belong to (CommentIterationContext, REST 7.1): both iterations
 * exist (1..latest) and the first is not after the second. Equal iterations compare the
 * iteration's common commit (the merge base) with its source commit — the pull request's diff;
 * `first < second` compares iteration `first`'s source commit with iteration `second`'s, so a
 * left-side (removed) line is a line of iteration `first`'s head, not of the merge base. The
 * right side is iteration `second`'s source either way. Lines must lie in the compared changes on
 * their side; the `changeTrackingId` is the file's in iteration `second`'s changes.
 */
import type { DiffFile } from '../fake-github/diff.js';
import { lineInPatch } from '../fake-bitbucket-cloud/git.js';
import type { Iteration } from './protocol.js';

/** The changed files from commit `from` to commit `to` (`git diff from to`). */
export type ChangesBetween = (from: string, to: string) => Promise<DiffFile[]>;

interface ThreadContextBody {
  threadContext?: Record<string, { line?: number; offset?: number } | string>;
  pullRequestThreadContext?: {
    changeTrackingId?: number;
    iterationContext?: { firstComparingIteration?: unknown; secondComparingIteration?: unknown };
  };
}

const isIteration = (n: unknown, latest: number): n is number =>
  typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= latest;

/**
 * Why the service would refuse a thread `body` (a `GitPullRequestCommentThread` as posted) on a
 * pull request with iterations `its`, or undefined when it places it.
 */
export async function badAnchor(
  its: Iteration[],
  body: Record<string, unknown>,
  changes: ChangesBetween,
): Promise<string | undefined> {
  const { threadContext: ctx, pullRequestThreadContext: prc } = body as ThreadContextBody;
  if (!ctx) return undefined;
  const filePath = ctx.filePath;
  if (typeof filePath !== 'string' || !filePath.startsWith('/'))
    return 'threadContext.filePath must start with /';
  const latest = its.length;
  const ic = prc?.iterationContext;
  const second = ic ? ic.secondComparingIteration : latest;
  const first = ic ? ic.firstComparingIteration : second;
  if (!isIteration(first, latest) || !isIteration(second, latest))
    return `iterationContext: iterations ${String(first)} and ${String(second)} must lie within 1..${latest}`;
  if (first > second)
    return `iterationContext: firstComparingIteration ${first} is after secondComparingIteration ${second}`;
  const it = its[second - 1] as Iteration;
  const right = await changes(it.common, it.source);
  const index = right.findIndex((f) => `/${f.filename}` === filePath);
  if (index < 0) return `${filePath} is not among the changes of iteration ${second}`;
  if (prc?.changeTrackingId !== undefined && prc.changeTrackingId !== index + 1)
    return 'wrong changeTrackingId';
  const leftBase = first === second ? it.common : (its[first - 1] as Iteration).source;
  const left = first === second ? right : await changes(leftBase, it.source);
  for (const [key, side] of [
    ['rightFileStart', 'to'],
    ['rightFileEnd', 'to'],
    ['leftFileStart', 'from'],
    ['leftFileEnd', 'from'],
  ] as const) {
    const pos = ctx[key];
    if (pos === undefined) continue;
    if (typeof pos !== 'object' || !pos.line || !pos.offset) return `${key} needs line and offset`;
    if (side === 'to' && !lineInPatch(right[index], side, pos.line))
      return `${key} line ${pos.line} is not in the changes of iteration ${second}`;
    if (
      side === 'from' &&
      !lineInPatch(
        left.find((f) => `/${f.filename}` === filePath),
        side,
        pos.line,
      )
    )
      return (
        `${key} line ${pos.line} is not in the changes from iteration ${first} to ${second}` +
        (first === second ? '' : ` (left side: iteration ${first}'s source commit)`)
      );
  }
  return undefined;
}
