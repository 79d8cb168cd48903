/**
 * Routes the bot's review memory reads (CONTRACT §13, §14), computed with git from the repository:
 * `repos/compare-commits-with-basehead` (`base...head`: status, counts, commits and files as GitHub
 * reports them; 404 when a commit is unknown) and `repos/get-content` for a file at `ref` (JSON with
 * base64 content; 404 for a missing file or ref; directories are not implemented), and
 * `pulls/list-commits` (the head's commits the base has not, oldest first, at most 250 as GitHub).
 */
import { computeDiffFiles, gitOutput } from './diff.js';
import { findPull, findRepo } from './handlers-pulls.js';
import { paginate } from './pagination.js';
import { errorResult, notFound, type Route, type RouteContext } from './route-types.js';
import { diffEntryJson } from './shapes-pull.js';
import type { PullRecord, RepoRecord } from './state.js';

async function resolveCommit(repo: RepoRecord, rev: string): Promise<string | undefined> {
  try {
    return (
      (await gitOutput(repo.bareRepoPath, ['rev-parse', '--verify', '--quiet', `${rev}^{commit}`])).trim() ||
      undefined
    );
  } catch {
    return undefined;
  }
}

function commitJson(ctx: RouteContext, repo: RepoRecord, sha: string, raw: string) {
  const [tree = '', parents = '', name = '', email = '', date = '', ...message] = raw.split('\n');
  const api = `${ctx.shape.baseUrl}/repos/${repo.owner}/${repo.name}`;
  const html = `${ctx.shape.baseUrl}/${repo.owner}/${repo.name}`;
  const person = { name, email, date: new Date(date).toISOString().replace(/\.\d{3}Z$/, 'Z') };
  return {
    url: `${api}/commits/${sha}`,
    sha,
    node_id: `C_${Buffer.from(sha).toString('base64url').slice(0, 20)}`,
    html_url: `${html}/commit/${sha}`,
    comments_url: `${api}/commits/${sha}/comments`,
    commit: {
      url: `${api}/git/commits/${sha}`,
      author: person,
      committer: person,
      message: message.join('\n').trim(),
      comment_count: 0,
      tree: { sha: tree, url: `${api}/git/trees/${tree}` },
    },
    author: null,
    committer: null,
    parents: parents
      .split(' ')
      .filter(Boolean)
      .map((p) => ({ sha: p, url: `${api}/commits/${p}`, html_url: `${html}/commit/${p}` })),
  };
}

async function commit(ctx: RouteContext, repo: RepoRecord, sha: string) {
  const raw = await gitOutput(repo.bareRepoPath, ['show', '-s', '--format=%T%n%P%n%an%n%ae%n%aI%n%B', sha]);
  return commitJson(ctx, repo, sha, raw);
}

const compare: Route = {
  auth: 'user',
  async handle(ctx) {
    const repo = findRepo(ctx);
    if (!repo) return notFound();
    const [baseRev, headRev, ...rest] = (ctx.params.basehead ?? '').split('...');
    if (!baseRev || !headRev || rest.length > 0) return notFound();
    const base = await resolveCommit(repo, baseRev);
    const head = await resolveCommit(repo, headRev);
    if (!base || !head) return notFound();
    let mergeBase: string;
    try {
      mergeBase = (await gitOutput(repo.bareRepoPath, ['merge-base', base, head])).trim();
    } catch {
      return errorResult(404, `No common ancestor between ${baseRev} and ${headRev}.`);
    }
    const count = async (range: string) =>
      Number((await gitOutput(repo.bareRepoPath, ['rev-list', '--count', range])).trim());
    const aheadBy = await count(`${mergeBase}..${head}`);
    const behindBy = await count(`${mergeBase}..${base}`);
    const status =
      aheadBy === 0 && behindBy === 0
        ? 'identical'
        : behindBy === 0
          ? 'ahead'
          : aheadBy === 0
            ? 'behind'
            : 'diverged';
    const shas = (await gitOutput(repo.bareRepoPath, ['rev-list', '--reverse', `${mergeBase}..${head}`]))
      .split('\n')
      .filter(Boolean)
      .slice(0, 250);
    const files = await computeDiffFiles(repo.bareRepoPath, base, head);
    const api = `${ctx.shape.baseUrl}/repos/${repo.owner}/${repo.name}`;
    const html = `${ctx.shape.baseUrl}/${repo.owner}/${repo.name}`;
    const pseudo = { repo } as PullRecord;
    return {
      status: 200,
      body: {
        url: `${api}/compare/${baseRev}...${headRev}`,
        html_url: `${html}/compare/${baseRev}...${headRev}`,
        permalink_url: `${html}/compare/${repo.owner}:${base.slice(0, 7)}...${repo.owner}:${head.slice(0, 7)}`,
        diff_url: `${html}/compare/${baseRev}...${headRev}.diff`,
        patch_url: `${html}/compare/${baseRev}...${headRev}.patch`,
        base_commit: await commit(ctx, repo, base),
        merge_base_commit: await commit(ctx, repo, mergeBase),
        status,
        ahead_by: aheadBy,
        behind_by: behindBy,
        total_commits: aheadBy,
        commits: await Promise.all(shas.map((sha) => commit(ctx, repo, sha))),
        files: files.slice(0, 300).map((f) => diffEntryJson(ctx.shape, pseudo, head, f)),
      },
    };
  },
};

const getContent: Route = {
  auth: 'user',
  async handle(ctx) {
    const repo = findRepo(ctx);
    if (!repo) return notFound();
    const path = ctx.params.path ?? '';
    const ref = ctx.url.searchParams.get('ref') ?? repo.defaultBranch;
    const sha = await resolveCommit(repo, ref);
    if (!sha) return errorResult(404, `No commit found for the ref ${ref}`);
    let blob: string;
    let type: string;
    try {
      blob = (
        await gitOutput(repo.bareRepoPath, ['rev-parse', '--verify', '--quiet', `${sha}:${path}`])
      ).trim();
      type = (await gitOutput(repo.bareRepoPath, ['cat-file', '-t', blob])).trim();
    } catch {
      return notFound();
    }
    if (type !== 'blob') return errorResult(501, 'the fake serves files only');
    const bytes = Buffer.from(await gitOutput(repo.bareRepoPath, ['cat-file', 'blob', blob]), 'utf8');
    const api = `${ctx.shape.baseUrl}/repos/${repo.owner}/${repo.name}`;
    const html = `${ctx.shape.baseUrl}/${repo.owner}/${repo.name}/blob/${ref}/${path}`;
    const self = `${api}/contents/${path}?ref=${ref}`;
    const gitUrl = `${api}/git/blobs/${blob}`;
    return {
      status: 200,
      body: {
        type: 'file',
        encoding: 'base64',
        size: bytes.length,
        name: path.split('/').pop() ?? path,
        path,
        content: (bytes.toString('base64').match(/.{1,60}/g) ?? []).join('\n'),
        sha: blob,
        url: self,
        git_url: gitUrl,
        html_url: html,
        download_url: `${ctx.shape.baseUrl}/raw/${repo.owner}/${repo.name}/${ref}/${path}`,
        _links: { self, git: gitUrl, html },
      },
    };
  },
};

/** GitHub's cap on the commits listed for one pull request. */
const MAX_PULL_COMMITS = 250;

const listCommits: Route = {
  auth: 'user',
  async handle(ctx) {
    const pull = findPull(ctx);
    if (!pull) return notFound();
    const facts = await ctx.pullFacts(pull);
    const shas = (
      await gitOutput(pull.repo.bareRepoPath, ['rev-list', '--reverse', `${facts.baseSha}..${facts.headSha}`])
    )
      .split('\n')
      .filter(Boolean);
    const page = paginate(shas, ctx.url, MAX_PULL_COMMITS);
    const body = await Promise.all(page.items.map((sha) => commit(ctx, pull.repo, sha)));
    return { status: 200, body, headers: page.headers };
  },
};

/** Routes of this module by OpenAPI operation id. */
export const memoryRoutes: Record<string, Route> = {
  'pulls/list-commits': listCommits,
  'repos/compare-commits-with-basehead': compare,
  'repos/get-content': getContent,
};
