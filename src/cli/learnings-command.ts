/**
 * `reviewbot learnings list|add|remove <platform>:<repo> …` (CONTRACT §20): an admin's view of what
 * the team taught the reviewer, on the same storage as the server and Job pods (the store of
 * `store.url`, else the files under `<workspace.base_dir>/.learnings/`). Exit codes as CONTRACT §2:
 * 0 ok, 1 storage failure, 2 usage or configuration error.
 */
import { loadConfig } from '../config/load-config.js';
import { describeError, ReviewbotError, UsageError } from '../errors.js';
import {
  dismissalText,
  isLearningId,
  LEARNING_LIMITS,
  openLearningsStore,
  type Learning,
  type LearningsScope,
  type LearningsStore,
} from '../learnings/index.js';

/** Platforms whose repositories may hold learnings (CONTRACT §4 names). */
const PLATFORMS = ['github', 'gitlab', 'gitea', 'bitbucket', 'bitbucket-server', 'azure-devops'];

/** What the `learnings` subcommands receive from commander. */
export type LearningsCommandOptions =
  | { action: 'list'; target: string; json: boolean; config?: string }
  | { action: 'add'; target: string; text: string; path?: string; config?: string }
  | { action: 'remove'; target: string; id: string; config?: string };

/**
 * True when `segment` can be one part of a repository name: not empty, `.` or `..`; no `:`, no
 * control character, no white space at either end (Azure DevOps names may hold inner spaces).
 */
function isNameSegment(segment: string): boolean {
  // eslint-disable-next-line no-control-regex
  if (segment === '' || segment === '.' || segment === '..' || /[:\x00-\x1f\x7f]/.test(segment)) return false;
  return segment.trim() === segment;
}

/**
 * Parses `<platform>:<repo>` (e.g. `github:acme/widgets`, `gitlab:group/sub/project`,
 * `azure-devops:Fabrikam Fiber/widgets`).
 * @throws UsageError naming the expected form.
 */
export function parseLearningsTarget(target: string): LearningsScope {
  const match = /^([a-z-]+):(.+)$/s.exec(target);
  const segments = match?.[2]?.split('/') ?? [];
  if (!match || !PLATFORMS.includes(match[1]!) || segments.length < 2 || !segments.every(isNameSegment)) {
    throw new UsageError(
      `expected <platform>:<owner>/<repo> (platform one of ${PLATFORMS.join(', ')}), e.g. github:acme/widgets; got "${target}"`,
    );
  }
  return { platform: match[1]!, repo: match[2]! };
}

/**
 * One learning for `learnings list`: id, date, source, author and path glob, then its text. A
 * dismissal shows the dismissed finding's path and fingerprint (`dismissalText`), never other text.
 */
function describeLearning(l: Learning): string {
  if (l.source === 'dismissal') {
    return `${l.id}  ${l.createdAt}  ${l.source}  @${l.author}\n    ${dismissalText(l.path, l.fingerprint)}`;
  }
  const where = l.path ? ` [${l.path}]` : '';
  return `${l.id}  ${l.createdAt}  ${l.source}  @${l.author}${where}\n    ${l.text.replace(/\n/g, '\n    ')}`;
}

async function run(
  options: LearningsCommandOptions,
  store: LearningsStore,
  scope: LearningsScope,
): Promise<number> {
  if (options.action === 'list') {
    const learnings = await store.list(scope);
    if (options.json) {
      process.stdout.write(
        `${JSON.stringify({ repository: `${scope.platform}:${scope.repo}`, learnings })}\n`,
      );
    } else if (learnings.length === 0) {
      process.stdout.write(`No learnings for ${scope.platform}:${scope.repo}.\n`);
    } else {
      process.stdout.write(`${learnings.map(describeLearning).join('\n')}\n`);
    }
    return 0;
  }
  if (options.action === 'add') {
    const text = options.text.trim();
    if (text === '' || text.length > LEARNING_LIMITS.maxTextChars) {
      throw new UsageError(`a learning's text must be 1 to ${LEARNING_LIMITS.maxTextChars} characters`);
    }
    if (
      options.path !== undefined &&
      (options.path === '' || options.path.length > LEARNING_LIMITS.maxPathChars)
    ) {
      throw new UsageError(`--path must be a glob of 1 to ${LEARNING_LIMITS.maxPathChars} characters`);
    }
    const author = process.env.USER ?? 'admin';
    const result = await store.add(scope, {
      text,
      author,
      source: 'command',
      ...(options.path !== undefined ? { path: options.path } : {}),
    });
    if (result.kind === 'full') {
      process.stderr.write(
        `reviewbot: ${scope.platform}:${scope.repo} already holds ${result.limit} learnings; remove some first\n`,
      );
      return 1;
    }
    process.stdout.write(`${result.learning.id}\n`);
    return 0;
  }
  if (!isLearningId(options.id))
    throw new UsageError(`a learning id is 8 hex characters; got "${options.id}"`);
  if (!(await store.remove(scope, options.id))) {
    process.stderr.write(`reviewbot: no learning ${options.id} in ${scope.platform}:${scope.repo}\n`);
    return 1;
  }
  process.stdout.write(`removed ${options.id}\n`);
  return 0;
}

/** Runs one `learnings` subcommand; resolves with the exit code (never throws). */
export async function runLearningsCommand(options: LearningsCommandOptions): Promise<number> {
  let store: LearningsStore | undefined;
  try {
    const scope = parseLearningsTarget(options.target);
    const { config } = loadConfig({
      ...(options.config ? { configFile: options.config } : {}),
      env: process.env,
    });
    store = await openLearningsStore({
      ...(config.store.url ? { storeUrl: config.store.url } : {}),
      baseDir: config.workspace.base_dir,
    });
    return await run(options, store, scope);
  } catch (error) {
    process.stderr.write(`reviewbot: ${describeError(error).replace(/rediss?:\/\/[^\s]*/g, 'redis://…')}\n`);
    return error instanceof ReviewbotError ? error.exitCode : 1;
  } finally {
    await store?.close();
  }
}
