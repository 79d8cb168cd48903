/**
 * HTTP helpers of the fake GitLab: request bodies as Grape (GitLab's API framework) reads them —
 * JSON, `application/x-www-form-urlencoded` or `multipart/form-data` with Rails-style bracket keys
 * (`position[line_range][start][line_code]`) — and GitLab's offset pagination headers.
 */

/** The parsed body, or `undefined` for none; throws when the declared type cannot be parsed. */
export async function parseBody(raw: Buffer, contentType: string | undefined): Promise<unknown> {
  if (raw.length === 0) return undefined;
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (type === 'multipart/form-data' || type === 'application/x-www-form-urlencoded') {
    const form = await new Response(new Uint8Array(raw), {
      headers: { 'content-type': contentType ?? '' },
    }).formData();
    const fields: Array<[string, string]> = [];
    for (const [key, value] of form.entries()) fields.push([key, typeof value === 'string' ? value : '']);
    return nestFields(fields);
  }
  return JSON.parse(raw.toString('utf8')) as unknown;
}

/** `a[b][c]=v` pairs → `{ a: { b: { c: 'v' } } }` (a trailing `[]` collects an array). */
export function nestFields(fields: Array<[string, string]>): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [key, value] of fields) {
    const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key);
    if (!match) {
      root[key] = value;
      continue;
    }
    const path = [
      match[1] as string,
      ...[...(match[2] ?? '').matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1] ?? ''),
    ];
    let node: Record<string, unknown> | undefined = root;
    for (let i = 0; node && i < path.length - 1; i++) {
      const part = path[i] as string;
      if (i === path.length - 2 && path[i + 1] === '') {
        const list: unknown[] = Array.isArray(node[part]) ? (node[part] as unknown[]) : [];
        list.push(value);
        node[part] = list;
        node = undefined;
        break;
      }
      const child = node[part];
      if (child === null || typeof child !== 'object' || Array.isArray(child)) node[part] = {};
      node = node[part] as Record<string, unknown>;
    }
    if (node) node[path.at(-1) as string] = value;
  }
  return root;
}

/** One page of a list plus GitLab's pagination headers (`x-*` and `Link`). */
export interface Page<T> {
  items: T[];
  headers: Record<string, string>;
}

/**
 * Pages `all` like GitLab's offset pagination: `page` (default 1) and `per_page` (default 20,
 * at most 100); headers `x-page`, `x-per-page`, `x-total`, `x-total-pages`, `x-next-page`,
 * `x-prev-page` (empty when none) and `Link` with `next`/`prev`/`first`/`last` URLs.
 */
export function paginate<T>(all: T[], url: URL): Page<T> {
  const perPageRaw = Number(url.searchParams.get('per_page') ?? '20');
  const perPage = Number.isInteger(perPageRaw) && perPageRaw > 0 ? Math.min(perPageRaw, 100) : 20;
  const pageRaw = Number(url.searchParams.get('page') ?? '1');
  const page = Number.isInteger(pageRaw) && pageRaw > 0 ? pageRaw : 1;
  const totalPages = Math.max(1, Math.ceil(all.length / perPage));
  const link = (p: number) => {
    const next = new URL(url);
    next.searchParams.set('page', String(p));
    next.searchParams.set('per_page', String(perPage));
    return next.toString();
  };
  const links: string[] = [];
  if (page > 1) links.push(`<${link(page - 1)}>; rel="prev"`);
  if (page < totalPages) links.push(`<${link(page + 1)}>; rel="next"`);
  links.push(`<${link(1)}>; rel="first"`, `<${link(totalPages)}>; rel="last"`);
  return {
    items: all.slice((page - 1) * perPage, page * perPage),
    headers: {
      'x-page': String(page),
      'x-per-page': String(perPage),
      'x-total': String(all.length),
      'x-total-pages': String(totalPages),
      'x-next-page': page < totalPages ? String(page + 1) : '',
      'x-prev-page': page > 1 ? String(page - 1) : '',
      link: links.join(', '),
    },
  };
}
