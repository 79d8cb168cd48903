/**
 * The `env` of a Job's container (CONTRACT §10): the JobPayload, the store settings, the workspace
 * root and every non-secret setting the job needs, copied from the server's effective configuration
 * under its environment variable name. Secrets never go here: Job pods get them through `envFrom`
 * of the Secrets in `kubernetes.env_from_secrets`. Pure functions.
 */
import type { V1EnvVar } from '@kubernetes/client-node';
import type { RawConfig } from '../../config/schema.js';
import type { JobPayload } from '../../jobs/types.js';

/** Where the Job's `workspace` emptyDir is mounted; the job's `WORKSPACE_BASE_DIR`. */
export const JOB_WORKSPACE_DIR = '/workspace';

/**
 * Largest `REVIEWBOT_JOB_PAYLOAD` value, bytes (UTF-8, after `$` escaping). Linux refuses a single
 * environment string over 128 KiB (`MAX_ARG_STRLEN`) when the container starts; 96 KiB leaves room.
 */
export const MAX_PAYLOAD_ENV_BYTES = 96 * 1024;

const TRUNCATION_NOTE = '\n\n[reviewbot: the request was cut to fit into a Kubernetes Job]';

/**
 * Escapes `value` for a container `env` value: the kubelet expands `$(NAME)` to the value of an
 * earlier variable (including every `envFrom` Secret entry) and turns `$$` into `$`, so each `$` is
 * doubled. Without this, a comment containing `$(ANTHROPIC_API_KEY)` would reach the job with the
 * key in it. Source: Kubernetes `EnvVar.value` docs ("Double $$ are reduced to a single $").
 */
export function escapeEnvValue(value: string): string {
  return value.replace(/\$/g, () => '$$');
}

/** True when `value` is a URL with a password in it (e.g. `redis://:pw@host:6379/0`) or unparsable. */
export function urlHasCredentials(value: string): boolean {
  try {
    const url = new URL(value);
    return url.password !== '';
  } catch {
    return true;
  }
}

function payloadBytes(payload: JobPayload): number {
  return Buffer.byteLength(escapeEnvValue(JSON.stringify(payload)), 'utf8');
}

function cutToBytes(text: string, maxBytes: number): string {
  let cut = Buffer.from(text, 'utf8').subarray(0, Math.max(0, maxBytes)).toString('utf8');
  // A cut through a multi-byte character leaves U+FFFD at the end; drop it.
  while (cut.endsWith('\uFFFD')) cut = cut.slice(0, -1);
  return cut;
}

/**
 * Returns `payload` when its escaped JSON fits in `maxBytes` (default `MAX_PAYLOAD_ENV_BYTES`),
 * else a copy made to fit: first `comment.body` is emptied (the server already extracted the
 * mention; the job reads `prompt`), then `comment.diffHunk` is dropped, then `prompt` is cut with a
 * note saying so. Everything else is kept.
 */
export function fitPayload(payload: JobPayload, maxBytes: number = MAX_PAYLOAD_ENV_BYTES): JobPayload {
  if (payloadBytes(payload) <= maxBytes) return payload;
  const fitted: JobPayload = { ...payload, comment: { ...payload.comment, body: '' } };
  if (payloadBytes(fitted) <= maxBytes) return fitted;
  delete fitted.comment.diffHunk;
  if (payloadBytes(fitted) <= maxBytes) return fitted;
  const cut = (bytes: number): JobPayload => ({
    ...fitted,
    prompt: cutToBytes(payload.prompt, bytes) + TRUNCATION_NOTE,
  });
  // Largest prefix of the prompt (in bytes) that fits: binary search, the size grows with the prefix.
  let low = 0;
  let high = Buffer.byteLength(payload.prompt, 'utf8');
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (payloadBytes(cut(mid)) <= maxBytes) low = mid;
    else high = mid - 1;
  }
  return cut(low);
}

/** A comma list for a list variable; undefined (omitted) when empty. */
function listValue(items: readonly string[]): string | undefined {
  return items.length > 0 ? items.join(',') : undefined;
}

function optionalNumber(value: number | undefined): string | undefined {
  return value === undefined ? undefined : String(value);
}

/** Settings copied to Job pods, with where each comes from; `undefined` = not set (omitted). */
function settings(config: RawConfig, env: NodeJS.ProcessEnv): [string, string | undefined][] {
  const pick = (...names: string[]): string | undefined => {
    for (const name of names) {
      const value = env[name]?.trim();
      if (value) return value;
    }
    return undefined;
  };
  return [
    ['STORE_URL', config.store.url],
    ['STORE_KEY_TTL_SECONDS', String(config.store.key_ttl_seconds)],
    // §19: with a shared volume the pods' workspaces and object stores live on it.
    ['WORKSPACE_BASE_DIR', config.workspace.shared_dir ?? JOB_WORKSPACE_DIR],
    // The pod knows its base directory is shared (it keeps spare checkouts there).
    ['WORKSPACE_SHARED_DIR', config.workspace.shared_dir],
    ['K8S_WORKSPACE_CLAIM', config.kubernetes.workspace_claim],
    ['AGENT_PROVIDER', config.agent.provider],
    ['AGENT_MODEL', config.agent.model],
    ['AGENT_BASE_URL', config.agent.base_url],
    ['AGENT_MAX_TURNS', String(config.agent.max_turns)],
    ['ANTHROPIC_BASE_URL', pick('ANTHROPIC_BASE_URL')],
    ['OPENAI_BASE_URL', pick('OPENAI_BASE_URL')],
    ['CODEHOST_API_URL', pick('CODEHOST_API_URL', 'GITHUB_API_URL')],
    ['GITLAB_URL', pick('GITLAB_URL')],
    ['GITEA_URL', pick('GITEA_URL')],
    ['BITBUCKET_API_URL', pick('BITBUCKET_API_URL')],
    ['BITBUCKET_SERVER_URL', pick('BITBUCKET_SERVER_URL')],
    ['AZURE_DEVOPS_URL', pick('AZURE_DEVOPS_URL')],
    ['REVIEWER_BOT_USERNAME', config.reviewer.bot_username],
    ['WORKER_BOT_USERNAME', config.worker.bot_username],
    ['LOG_LEVEL', pick('LOG_LEVEL')],
    // Review behaviour and budgets (§13-§15) and the tool sandbox (§16): the pod decides with
    // the server's settings, so a cluster reviews exactly as a standalone server would.
    ['REVIEW_INCREMENTAL', String(config.review.incremental)],
    ['REVIEW_INSTRUCTIONS', config.review.instructions],
    ['REVIEW_IGNORE', listValue(config.review.ignore)],
    ['REVIEW_MAX_COMMENTS', optionalNumber(config.review.max_comments)],
    ['REVIEW_MAX_DIFF_TOKENS', String(config.review.max_diff_tokens)],
    ['REVIEW_MAX_PARTS', String(config.review.max_parts)],
    ['REVIEW_MAX_PARALLEL_RUNS', String(config.review.max_parallel_runs)],
    ['REVIEW_MAX_COST_USD', optionalNumber(config.review.max_cost_usd)],
    ['REVIEW_PROGRESS', config.review.progress],
    ['REVIEW_MIN_SEVERITY', config.review.min_severity],
    ['REVIEW_GATE', config.review.gate],
    ['REVIEW_BLOCK_ON', config.review.block_on],
    ['AGENT_SANDBOX', config.agent.sandbox],
    ['AGENT_SANDBOX_NETWORK', listValue(config.agent.sandbox_network)],
  ];
}

const URL_SETTINGS = new Set([
  'STORE_URL',
  'AGENT_BASE_URL',
  'ANTHROPIC_BASE_URL',
  'OPENAI_BASE_URL',
  'CODEHOST_API_URL',
  'GITLAB_URL',
  'GITEA_URL',
  'BITBUCKET_API_URL',
  'BITBUCKET_SERVER_URL',
  'AZURE_DEVOPS_URL',
]);

/** The container `env` of a job, and the settings withheld from it because they hold a secret. */
export interface JobEnv {
  env: V1EnvVar[];
  /**
   * Names of set settings left out because their value is a URL with a password (e.g. a
   * `STORE_URL` like `redis://:pw@host/0`): Job pods must read them from an `envFrom` Secret.
   */
  withheld: string[];
}

/**
 * Builds the Job container's `env`: `REVIEWBOT_JOB_PAYLOAD` (the payload's JSON, made to fit by
 * `fitPayload`), then `STORE_URL`, `STORE_KEY_TTL_SECONDS`, `WORKSPACE_BASE_DIR=/workspace` (`workspace.shared_dir` when set, §19, then also `WORKSPACE_SHARED_DIR` and `K8S_WORKSPACE_CLAIM`),
 * `AGENT_PROVIDER`, `AGENT_MODEL`, `AGENT_BASE_URL`, `AGENT_MAX_TURNS`, `ANTHROPIC_BASE_URL`,
 * `OPENAI_BASE_URL`, `CODEHOST_API_URL` (or the server's `GITHUB_API_URL`), `GITLAB_URL`, `GITEA_URL`,
 * `BITBUCKET_API_URL`, `BITBUCKET_SERVER_URL`, the bot
 * usernames, `LOG_LEVEL`, the `REVIEW_*` settings and `AGENT_SANDBOX`/`AGENT_SANDBOX_NETWORK`, each
 * only when set; every value `$`-escaped (`escapeEnvValue`). A URL
 * with a password is never copied; its name is listed in `withheld`.
 */
export function buildJobEnv(payload: JobPayload, config: RawConfig, env: NodeJS.ProcessEnv): JobEnv {
  const out: V1EnvVar[] = [
    { name: 'REVIEWBOT_JOB_PAYLOAD', value: escapeEnvValue(JSON.stringify(fitPayload(payload))) },
  ];
  const withheld: string[] = [];
  for (const [name, value] of settings(config, env)) {
    if (value === undefined || value === '') continue;
    if (URL_SETTINGS.has(name) && urlHasCredentials(value)) {
      withheld.push(name);
      continue;
    }
    out.push({ name, value: escapeEnvValue(value) });
  }
  return { env: out, withheld };
}

/**
 * Names of the settings a Job pod must get from an `envFrom` Secret because the server's value
 * holds a password (see `JobEnv.withheld`); empty when every setting can be copied. For a start-up
 * warning.
 */
export function withheldJobSettings(config: RawConfig, env: NodeJS.ProcessEnv): string[] {
  return settings(config, env)
    .filter(([name, value]) => value !== undefined && URL_SETTINGS.has(name) && urlHasCredentials(value))
    .map(([name]) => name);
}
