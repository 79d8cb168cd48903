/**
 * `GET {project}/_apis/git/repositories/{repositoryId}/pullrequests` of the fake Azure DevOps (REST
 * "Pull Requests - Get Pull Requests"): `searchCriteria.status` (`notSet`/`active` = active, the
 * service's default; `abandoned`, `completed`, `all`; names or the library's numbers),
 * `searchCriteria.queryTimeRangeType` (`created` 1, the default, or `closed` 2) with
 * `searchCriteria.minTime` / `maxTime`, `$skip` and `$top`; newest pull request first. Values the
 * service cannot bind answer 400. A pull request's status and closing time are set with
 * `setPullRequestStatus` (kept here beside the records the other routes own).
 */
import { enumName, error, wrap, type Answer, type Pull } from './protocol.js';

/** GitInterfaces `PullRequestStatus` and `PullRequestTimeRangeType`. */
const PR_STATUS = ['notSet', 'active', 'abandoned', 'completed', 'all'];
const TIME_RANGE = ['', 'created', 'closed'];

/** A pull request's status and creation/closing times. */
interface Lifecycle {
  status: 'active' | 'abandoned' | 'completed';
  creationDate: string;
  closedDate?: string;
}

const LIFECYCLE = new WeakMap<Pull, Lifecycle>();

/** The lifecycle of `pull` (active since epoch 0, as `prJson` shows it, until set). */
export function lifecycleOf(pull: Pull): Lifecycle {
  return LIFECYCLE.get(pull) ?? { status: 'active', creationDate: new Date(0).toISOString() };
}

/** Completes or abandons `pull` now (its `closedDate`), or reactivates it. */
export function setLifecycle(pull: Pull, status: Lifecycle['status']): void {
  const { creationDate } = lifecycleOf(pull);
  LIFECYCLE.set(pull, {
    status,
    creationDate,
    ...(status === 'active' ? {} : { closedDate: new Date().toISOString() }),
  });
}

function time(value: string | null): number | undefined | null {
  if (value === null) return undefined;
  const parsed = Date.parse(value);
  return Number.isNaN(parsed) ? null : parsed;
}

/** Answers the listing of the repository's pull requests `pulls`, shaped by `prJson`. */
export async function listPullRequests(
  pulls: Pull[],
  url: URL,
  prJson: (pull: Pull) => Promise<Record<string, unknown>>,
): Promise<Answer> {
  const q = url.searchParams;
  const status = enumName(PR_STATUS, numeric(q.get('searchCriteria.status') ?? 'active'));
  if (!PR_STATUS.includes(status)) return error(400, `Invalid value for searchCriteria.status: ${status}`);
  const range = enumName(TIME_RANGE, numeric(q.get('searchCriteria.queryTimeRangeType') ?? 'created'));
  if (range !== 'created' && range !== 'closed') {
    return error(400, `Invalid value for searchCriteria.queryTimeRangeType: ${range}`);
  }
  const min = time(q.get('searchCriteria.minTime'));
  const max = time(q.get('searchCriteria.maxTime'));
  if (min === null || max === null) return error(400, 'searchCriteria.minTime/maxTime is not a date');
  const skip = Number(q.get('$skip') ?? '0');
  const top = Number(q.get('$top') ?? '101');
  if (!Number.isInteger(skip) || skip < 0 || !Number.isInteger(top) || top < 0) {
    return error(400, '$skip and $top must be non-negative integers');
  }
  const wanted = (l: Lifecycle) => status === 'all' || l.status === (status === 'notSet' ? 'active' : status);
  const inRange = (l: Lifecycle) => {
    if (min === undefined && max === undefined) return true;
    const at = range === 'closed' ? l.closedDate : l.creationDate;
    if (at === undefined) return false;
    const t = Date.parse(at);
    return t >= (min ?? -Infinity) && t <= (max ?? Infinity);
  };
  const rows = pulls
    .filter((p) => wanted(lifecycleOf(p)) && inRange(lifecycleOf(p)))
    .sort((a, b) => b.id - a.id)
    .slice(skip, skip + top);
  return wrap(
    await Promise.all(
      rows.map(async (p) => {
        const l = lifecycleOf(p);
        return {
          ...(await prJson(p)),
          status: l.status,
          creationDate: l.creationDate,
          closedDate: l.closedDate,
        };
      }),
    ),
  );
}

/** The library sends enums as numbers: `"4"` → 4, a name stays a name. */
function numeric(value: string): string | number {
  return /^\d+$/.test(value) ? Number(value) : value;
}
