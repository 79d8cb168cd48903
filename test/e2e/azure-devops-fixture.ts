/**
 * Shared set-up of the Azure DevOps end-to-end tests: the diff scenario as a real bare repository,
 * pull request `Fabrikam/widgets#7` on the fake Azure DevOps, the fake Anthropic Messages API, and
 * the environment the built CLI (or `reviewbot serve`) needs to reach them. The service-hook side
 * (Basic credentials, the bot identities, Alice's mention) is here too; each test keeps its own
 * scenario.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  commentEvent,
  sendServiceHook,
  startFakeAzureDevOps,
  type FakeAzureDevOps,
  type FakeAzureOptions,
  type StoredThread,
} from '../support/fake-azure-devops/index.js';
import { startFakeAnthropic, type FakeLlm } from '../support/fake-llm/index.js';
import { createDiffScenario, gitEnv, type DiffScenario } from '../support/git-fixtures.js';
import type { ServeProcess } from '../support/serve-process.js';
import { LLM_KEY } from './cli-fixture.js';

export const PROJECT = 'Fabrikam';
export const REPO = 'widgets';
/** The REVIEWER's unique name (the fake's authenticated user where a test sets it). */
export const BOT = 'reviewbot@example.com';
export const WORKER = 'workbot@example.com';
/** The one user in `ALLOWED_USERS`. */
export const ALICE = { id: '11111111-2222-4333-8444-555555555555', uniqueName: 'alice@example.com' };
/** Basic credentials of the service-hook subscription. */
export const HOOK_USER = 'reviewbot-hooks';
export const HOOK_SECRET = 'ado-hook-secret-e2e-0123456789';

/** Alice's comment on a pull request and the service hook event announcing it. */
export interface Mention {
  thread: StoredThread;
  event: ReturnType<typeof commentEvent>;
}

/** Options of `createAzureDevOpsFixture`. */
export interface AzureDevOpsFixtureOptions {
  /** Prefix of the temporary directory, e.g. `reviewbot-ado-serve-`. */
  prefix: string;
  /** The token the fake accepts and the CLI gets as `AZURE_DEVOPS_TOKEN`. */
  token: string;
  /** The fake's other options (bot identity, collection path, `bearer` scheme). */
  fake?: Omit<FakeAzureOptions, 'token'>;
  /** Pull request #7's description (none unless given). */
  description?: string;
  /** The project holding the repository; `PROJECT` unless given (e.g. a name with a space). */
  project?: string;
}

/** The running fakes and paths of one test file. */
export interface AzureDevOpsFixture {
  root: string;
  /** The project of pull request #7 (`options.project`, else `PROJECT`). */
  project: string;
  /** `WORKSPACE_BASE_DIR` of `env`. */
  baseDir: string;
  scenario: DiffScenario;
  ado: FakeAzureDevOps;
  llm: FakeLlm;
  /**
   * The token, the collection URL, the workspace directory, HOME and the fake model's key and URL;
   * a test adds the agent settings and anything its scenario needs.
   */
  env: NodeJS.ProcessEnv;
  /**
   * `env` plus what `reviewbot serve` needs to take service hooks: the hook credentials, the
   * REVIEWER and WORKER names and Alice as the one allowed user.
   */
  serveEnv: NodeJS.ProcessEnv;
  /** A thread by Alice on pull request #`id` with `content` as its first comment, and its event. */
  mention(content: string, id?: number): Promise<Mention>;
  /** Posts `payload` to `server`'s Azure DevOps hook URL, with the hook credentials unless `auth` is given. */
  deliver(
    server: ServeProcess,
    payload: unknown,
    auth?: { user: string; password: string },
  ): ReturnType<typeof sendServiceHook>;
  /** Closes the fakes and removes the temporary directory. */
  close(): Promise<void>;
}

/**
 * Creates the repository with the diff scenario under a new temporary directory, opens pull request
 * #7 ("Tune the service constants", head and base of the scenario) in `options.project` (else
 * `PROJECT`) on a fake Azure DevOps, and
 * starts the fake Anthropic API.
 */
export async function createAzureDevOpsFixture(
  options: AzureDevOpsFixtureOptions,
): Promise<AzureDevOpsFixture> {
  const root = mkdtempSync(path.join(os.tmpdir(), options.prefix));
  const baseDir = path.join(root, 'workspaces');
  const project = options.project ?? PROJECT;
  let ado: FakeAzureDevOps | undefined;
  try {
    const scenario = createDiffScenario(path.join(root, 'repos'), 'acme/widgets');
    ado = await startFakeAzureDevOps({ ...options.fake, token: options.token });
    ado.addPullRequest({
      project,
      repo: REPO,
      id: 7,
      bareRepoPath: scenario.bareRepoPath,
      headBranch: scenario.head,
      baseBranch: scenario.base,
      title: 'Tune the service constants',
      ...(options.description === undefined ? {} : { description: options.description }),
    });
    const llm = await startFakeAnthropic({ apiKey: LLM_KEY });
    const fake = ado;
    const env: NodeJS.ProcessEnv = {
      AZURE_DEVOPS_TOKEN: options.token,
      AZURE_DEVOPS_URL: fake.collectionUrl,
      WORKSPACE_BASE_DIR: baseDir,
      ANTHROPIC_API_KEY: LLM_KEY,
      ANTHROPIC_BASE_URL: llm.url,
      HOME: root,
    };
    return {
      root,
      project,
      baseDir,
      scenario,
      ado: fake,
      llm,
      env,
      serveEnv: {
        ...env,
        AZURE_DEVOPS_WEBHOOK_USER: HOOK_USER,
        AZURE_DEVOPS_WEBHOOK_SECRET: HOOK_SECRET,
        REVIEWER_BOT_USERNAME: BOT,
        WORKER_BOT_USERNAME: WORKER,
        ALLOWED_USERS: ALICE.uniqueName,
      },
      async mention(content, id = 7) {
        const thread = fake.addThread(project, REPO, id, ALICE.uniqueName, ALICE.id, content);
        const pr = await fake.pullRequestJson(project, REPO, id);
        return { thread, event: commentEvent(pr, thread.id, { id: 1, content, author: ALICE }) };
      },
      deliver(server, payload, auth = { user: HOOK_USER, password: HOOK_SECRET }) {
        return sendServiceHook(`${server.url}/webhooks/azure-devops`, payload, auth);
      },
      async close() {
        await llm.close();
        await fake.close();
        rmSync(root, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await ado?.close().catch(() => undefined);
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
}

/** git in the bare repository `bare`; its trimmed output. */
export async function bareGit(bare: string, args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)('git', [`--git-dir=${bare}`, ...args], { env: gitEnv() });
  return stdout.trim();
}
