/**
 * The fake's git side: facts of a pull request read from its bare repository (keeping
 * `refs/pull/<n>/head` up to date as GitHub does, fetching it from the head repository of a fork)
 * and smart HTTP for the registered repositories, which are linked under one project root.
 */
import { mkdirSync, symlinkSync, existsSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname, join } from 'node:path';
import { createGitHttpHandler, type GitHttpHandler } from '../git-http-server.js';
import type { InstallationToken } from './app-auth.js';
import { basicPassword, isLiveInstallationToken, type AuthConfig } from './auth.js';
import { computeDiffFiles, computeFullDiff, gitOutput, type DiffFile } from './diff.js';
import type { PullFacts } from './shapes-pull.js';
import type { PullRecord } from './state.js';

/** Git operations the fake's routes use. */
export interface GitService {
  pullFacts(pull: PullRecord, commit?: string): Promise<PullFacts>;
  hasCommit(pull: PullRecord, sha: string): Promise<boolean>;
  pullDiff(pull: PullRecord): Promise<string>;
  /** Makes `<gitRoot>/<owner>/<repo>.git` serve `bareRepoPath`. */
  link(owner: string, repo: string, bareRepoPath: string): void;
  /** Serves a `/git/...` request; installation tokens are accepted like the personal token. */
  handle(req: IncomingMessage, res: ServerResponse): void;
  readonly http: GitHttpHandler;
}

async function revParse(repoPath: string, rev: string): Promise<string> {
  return (await gitOutput(repoPath, ['rev-parse', '--verify', '--quiet', `${rev}^{commit}`])).trim();
}

/** Updates `refs/pull/<n>/head` from the head branch (when it still exists) and returns its SHA. */
async function syncPullRef(pull: PullRecord): Promise<string> {
  const repoPath = pull.repo.bareRepoPath;
  const ref = `refs/pull/${pull.number}/head`;
  try {
    if (pull.headRepo !== pull.repo) {
      await gitOutput(repoPath, [
        'fetch',
        '--quiet',
        '--no-tags',
        pull.headRepo.bareRepoPath,
        `+refs/heads/${pull.head}:${ref}`,
      ]);
    } else {
      await gitOutput(repoPath, ['update-ref', ref, await revParse(repoPath, `refs/heads/${pull.head}`)]);
    }
  } catch {
    // Head branch deleted: GitHub keeps the pull request at its last head.
  }
  const sha = await revParse(repoPath, ref);
  pull.lastHeadSha = sha;
  return sha;
}

/**
 * Whether a scoped installation token may make git request `url` (`/git/<owner>/<repo>.git/...`):
 * its repository must be among the token's, and a push (`git-receive-pack`) needs contents:write.
 */
export function installationTokenMayAccess(minted: InstallationToken, url: string): boolean {
  const repo = /^\/git\/[^/]+\/([^/]+?)\.git\//.exec(url)?.[1];
  if (minted.repositories && (!repo || !minted.repositories.includes(repo))) return false;
  if (url.includes('git-receive-pack') && minted.permissions && minted.permissions.contents !== 'write')
    return false;
  return true;
}

/** Creates the git service; `gitRoot` is an empty directory the fake owns. */
export function createGitService(gitRoot: string, auth: AuthConfig): GitService {
  const http = createGitHttpHandler({ projectRoot: gitRoot, password: auth.token, prefix: '/git' });
  const diffCache = new Map<string, DiffFile[]>();

  async function files(repoPath: string, baseSha: string, headSha: string): Promise<DiffFile[]> {
    const key = `${repoPath}\0${baseSha}...${headSha}`;
    let hit = diffCache.get(key);
    if (!hit) {
      hit = await computeDiffFiles(repoPath, baseSha, headSha);
      diffCache.set(key, hit);
    }
    return hit;
  }

  return {
    http,
    async pullFacts(pull, commit) {
      const repoPath = pull.repo.bareRepoPath;
      const synced = await syncPullRef(pull);
      const headSha = commit ?? synced;
      const baseSha = await revParse(repoPath, `refs/heads/${pull.base}`);
      const count = await gitOutput(repoPath, ['rev-list', '--count', `${baseSha}..${headSha}`]);
      return {
        baseSha,
        headSha,
        files: await files(repoPath, baseSha, headSha),
        commits: Number(count.trim()),
      };
    },
    async hasCommit(pull, sha) {
      await syncPullRef(pull);
      try {
        await revParse(pull.repo.bareRepoPath, sha);
        return true;
      } catch {
        return false;
      }
    },
    async pullDiff(pull) {
      const headSha = await syncPullRef(pull);
      return computeFullDiff(pull.repo.bareRepoPath, `refs/heads/${pull.base}`, headSha);
    },
    link(owner, repo, bareRepoPath) {
      const target = join(gitRoot, owner, `${repo}.git`);
      if (existsSync(target)) return;
      mkdirSync(dirname(target), { recursive: true });
      symlinkSync(bareRepoPath, target, 'dir');
    },
    handle(req, res) {
      const basic = basicPassword(req.headers.authorization);
      const minted = basic ? auth.installationTokens.get(basic.password) : undefined;
      if (minted && !installationTokenMayAccess(minted, req.url ?? '')) {
        res
          .writeHead(403, { 'content-type': 'text/plain' })
          .end('Permission denied to this installation token\n');
        return;
      }
      if (basic && isLiveInstallationToken(auth, basic.password, Date.now())) {
        const swapped = Buffer.from(`${basic.user}:${auth.token}`).toString('base64');
        req.headers.authorization = `Basic ${swapped}`;
      }
      http.handle(req, res);
    },
  };
}
