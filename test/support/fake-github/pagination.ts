/**
 * GitHub's list pagination: `per_page` (default 30, at most 100), `page` (from 1), and an RFC 5988
 * `Link` header with `prev`, `next`, `last` and `first` relations (omitted when everything fits on
 * one page). Octokit's `paginate` follows `rel="next"`. Source: docs.github.com "Using pagination
 * in the REST API".
 */

/** One page of a list and the headers to send with it. */
export interface Page<T> {
  items: T[];
  headers: Record<string, string>;
}

/** Default and maximum `per_page` of GitHub's REST API. */
export const PER_PAGE_DEFAULT = 30;
export const PER_PAGE_MAX = 100;

function intParam(value: string | null, fallback: number): number {
  const n = value === null ? Number.NaN : Number.parseInt(value, 10);
  return Number.isFinite(n) && n > 0 ? n : fallback;
}

/**
 * Cuts `items` to the page the query asks for. `requestUrl` is the absolute URL of the request (its
 * other query parameters are kept in the links). `maxItems` caps the list as GitHub does for
 * pull-request files (3000).
 */
export function paginate<T>(items: T[], requestUrl: URL, maxItems = Number.POSITIVE_INFINITY): Page<T> {
  const all = items.slice(0, maxItems);
  const perPage = Math.min(intParam(requestUrl.searchParams.get('per_page'), PER_PAGE_DEFAULT), PER_PAGE_MAX);
  const page = intParam(requestUrl.searchParams.get('page'), 1);
  const last = Math.max(1, Math.ceil(all.length / perPage));
  const pageItems = all.slice((page - 1) * perPage, page * perPage);
  if (last === 1 && page === 1) return { items: pageItems, headers: {} };
  const link = (n: number, rel: string) => {
    const url = new URL(requestUrl);
    url.searchParams.set('page', String(n));
    return `<${url.toString()}>; rel="${rel}"`;
  };
  const links: string[] = [];
  if (page > 1) links.push(link(Math.min(page - 1, last), 'prev'));
  if (page < last) links.push(link(page + 1, 'next'), link(last, 'last'));
  if (page > 1) links.push(link(1, 'first'));
  return { items: pageItems, headers: { link: links.join(', ') } };
}
