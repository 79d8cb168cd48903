/**
 * The workspace cleaner on workspaces whose repository names are escaped in their path (an Azure
 * DevOps project `Fabrikam Fiber` lives in `Fabrikam%20Fiber`): it asks the real Azure DevOps
 * platform, against the fake Azure DevOps, about the repository by its own name, keeps the open
 * pull request, and never asks about a directory no workspace path names.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAzureDevOps, type FakeAzureDevOps } from '../../test/support/fake-azure-devops/index.js';
import { createDiffScenario } from '../../test/support/git-fixtures.js';
import { silentLogger } from '../logger.js';
import { createAzureDevOpsPlatform } from '../platforms/azure-devops/platform.js';
import type { Platform, PlatformName } from '../platforms/types.js';
import { workspacePath } from '../workspace/workspace-path.js';
import { createWorkspaceCleaner, findWorkspaces } from './cleaner.js';

const TOKEN = 'ado-cleanerPatThatMustNeverLeak0123456789';
const PROJECT = 'Fabrikam Fiber';

let root: string;
let base: string;
let ado: FakeAzureDevOps;
let platforms: Map<PlatformName, Platform>;

beforeAll(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-cleaner-ado-'));
  base = path.join(root, 'workspaces');
  await mkdir(base);
  await writeFile(path.join(base, '.reviewbot-layout'), '2\n');
  const scenario = createDiffScenario(path.join(root, 'repos'), 'acme/widgets');
  ado = await startFakeAzureDevOps({ token: TOKEN });
  ado.addPullRequest({
    project: PROJECT,
    repo: 'widgets',
    id: 7,
    bareRepoPath: scenario.bareRepoPath,
    headBranch: scenario.head,
    baseBranch: scenario.base,
  });
  const platform = createAzureDevOpsPlatform({
    settings: { token: TOKEN, url: ado.collectionUrl, webhookUser: undefined, webhookSecret: undefined },
    logger: silentLogger(),
  });
  platforms = new Map([['azure-devops', platform]]);
});
afterAll(async () => {
  await ado?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

/** Creates workspace directory `dir` with a checkout-like content. */
async function workspace(dir: string): Promise<string> {
  await mkdir(path.join(dir, '.git'), { recursive: true });
  await writeFile(path.join(dir, 'README.md'), 'checkout\n');
  return dir;
}

describe('the cleaner on escaped repository names', () => {
  it('asks the platform by the repository name and keeps the open pull request', async () => {
    const open = await workspace(workspacePath(base, 'azure-devops', `${PROJECT}/widgets`, 7));
    const gone = await workspace(workspacePath(base, 'azure-devops', `${PROJECT}/widgets`, 9)); // no such pull request
    // Not a directory `workspacePath` makes (an unescaped space): never looked up, never deleted.
    const foreign = await workspace(path.join(base, 'azure-devops', PROJECT, 'widgets', 'pr-7'));
    expect(path.relative(base, open)).toBe('azure-devops/Fabrikam%20Fiber/widgets/pr-7');

    const found = await findWorkspaces(base);
    expect(found.map((w) => [path.relative(base, w.dir), w.repoFullName])).toEqual([
      ['azure-devops/Fabrikam Fiber/widgets/pr-7', 'Fabrikam Fiber/widgets'],
      ['azure-devops/Fabrikam%20Fiber/widgets/pr-7', 'Fabrikam Fiber/widgets'],
      ['azure-devops/Fabrikam%20Fiber/widgets/pr-9', 'Fabrikam Fiber/widgets'],
    ]);

    const before = ado.requests.length;
    const report = await createWorkspaceCleaner({
      baseDir: base,
      platforms,
      intervalHours: 0,
      logger: silentLogger(),
    }).runOnce();
    const reasons = Object.fromEntries(report.kept.map((k) => [path.relative(base, k.dir), k.reason]));
    expect(reasons).toMatchObject({
      'azure-devops/Fabrikam Fiber/widgets/pr-7': 'not a repository path of azure-devops',
      'azure-devops/Fabrikam%20Fiber/widgets/pr-7': 'open on azure-devops',
    });
    expect(existsSync(open)).toBe(true);
    expect(existsSync(foreign)).toBe(true);
    // A pull request Azure DevOps no longer knows (404) is gone: its workspace is deleted.
    expect(existsSync(gone)).toBe(false);
    // Both look-ups name the project as Azure DevOps spells it (URL-encoded once, by the client);
    // the foreign directory was not looked up.
    const asked = ado.requests
      .slice(before)
      .filter((r) => r.method === 'GET' && /pullRequests\/\d+$/.test(r.path))
      .map((r) => [r.path, r.status]);
    expect(asked).toEqual([
      ['/acme/Fabrikam%20Fiber/_apis/git/repositories/widgets/pullRequests/7', 200],
      ['/acme/Fabrikam%20Fiber/_apis/git/repositories/widgets/pullRequests/9', 404],
    ]);
    expect(ado.violations).toEqual([]);
  });
});
