/**
 * Environment overrides of YAML settings (CONTRACT §3): each variable maps to one YAML path and a
 * value kind used to coerce the string.
 */

/** How an environment string becomes a YAML value. */
export type EnvKind = 'string' | 'int' | 'number' | 'list' | 'bool';

/** One environment variable that overrides a YAML path. */
export interface EnvBinding {
  env: string;
  path: string[];
  kind: EnvKind;
}

function bind(env: string, dotted: string, kind: EnvKind = 'string'): EnvBinding {
  return { env, path: dotted.split('.'), kind };
}

/** Every environment override, in the order they are applied (later wins for aliases). */
export const ENV_BINDINGS: readonly EnvBinding[] = [
  bind('WEBHOOK_HOST', 'webhook.host'),
  bind('WEBHOOK_PORT', 'webhook.port', 'int'),
  bind('MAX_CONCURRENT_JOBS', 'webhook.max_concurrent_jobs', 'int'),
  bind('REVIEWER_BOT_USERNAME', 'reviewer.bot_username'),
  bind('REVIEWER_TRIGGERS', 'reviewer.triggers', 'list'),
  bind('WORKER_BOT_USERNAME', 'worker.bot_username'),
  bind('ALLOWED_USERS', 'access.allowed_users', 'list'),
  bind('ALLOWED_REPOS', 'access.allowed_repos', 'list'),
  bind('AGENT_PROVIDER', 'agent.provider'),
  bind('AGENT_MODEL', 'agent.model'),
  bind('AGENT_MAX_TURNS', 'agent.max_turns', 'int'),
  bind('AGENT_BASE_URL', 'agent.base_url'),
  bind('AGENT_CLI_PATH', 'agent.cli_path'),
  bind('WORKSPACE_BASE_DIR', 'workspace.base_dir'),
  bind('CLEANUP_INTERVAL_HOURS', 'workspace.cleanup_interval_hours', 'number'),
  bind('WORKSPACE_SHARED_DIR', 'workspace.shared_dir'),
  bind('K8S_IMAGE', 'kubernetes.image'),
  bind('K8S_NAMESPACE', 'kubernetes.namespace'),
  bind('K8S_IMAGE_PULL_POLICY', 'kubernetes.image_pull_policy'),
  bind('K8S_SERVICE_ACCOUNT', 'kubernetes.service_account'),
  bind('K8S_ENV_FROM_SECRETS', 'kubernetes.env_from_secrets', 'list'),
  bind('K8S_BACKOFF_LIMIT', 'kubernetes.backoff_limit', 'int'),
  bind('K8S_ACTIVE_DEADLINE_SECONDS', 'kubernetes.active_deadline_seconds', 'int'),
  bind('K8S_TTL_AFTER_FINISHED', 'kubernetes.ttl_after_finished', 'int'),
  bind('K8S_WORKSPACE_CLAIM', 'kubernetes.workspace_claim'),
  bind('K8S_RESOURCE_REQUESTS_CPU', 'kubernetes.resources.requests.cpu'),
  bind('K8S_RESOURCE_REQUESTS_MEMORY', 'kubernetes.resources.requests.memory'),
  bind('K8S_RESOURCE_LIMITS_CPU', 'kubernetes.resources.limits.cpu'),
  bind('K8S_RESOURCE_LIMITS_MEMORY', 'kubernetes.resources.limits.memory'),
  bind('AGENT_SANDBOX', 'agent.sandbox'),
  bind('AGENT_SANDBOX_NETWORK', 'agent.sandbox_network', 'list'),
  bind('REVIEW_INCREMENTAL', 'review.incremental', 'bool'),
  bind('REVIEW_INSTRUCTIONS', 'review.instructions'),
  bind('REVIEW_IGNORE', 'review.ignore', 'list'),
  bind('REVIEW_MAX_COMMENTS', 'review.max_comments', 'int'),
  bind('REVIEW_MAX_DIFF_TOKENS', 'review.max_diff_tokens', 'int'),
  bind('REVIEW_MAX_PARTS', 'review.max_parts', 'int'),
  bind('REVIEW_MAX_PARALLEL_RUNS', 'review.max_parallel_runs', 'int'),
  bind('REVIEW_MAX_COST_USD', 'review.max_cost_usd', 'number'),
  bind('REVIEW_PROGRESS', 'review.progress'),
  bind('REVIEW_VERIFY', 'review.verify'),
  bind('REVIEW_VERIFY_MIN_SEVERITY', 'review.verify_min_severity'),
  bind('REVIEW_VERIFY_MAX', 'review.verify_max', 'int'),
  bind('REVIEW_VERIFY_TIMEOUT_SECONDS', 'review.verify_timeout_seconds', 'int'),
  bind('EVAL_JUDGE_MODEL', 'eval.judge_model'),
  bind('REVIEW_MIN_SEVERITY', 'review.min_severity'),
  bind('REVIEW_GATE', 'review.gate'),
  bind('REVIEW_BLOCK_ON', 'review.block_on'),
  bind('STORE_URL', 'store.url'),
  bind('STORE_KEY_TTL_SECONDS', 'store.key_ttl_seconds', 'int'),
];

/**
 * Converts an environment string to the YAML value kind. Numbers that do not parse are returned as
 * the original string so the schema reports them with the key's name.
 */
export function coerceEnvValue(value: string, kind: EnvKind): unknown {
  const trimmed = value.trim();
  switch (kind) {
    case 'string':
      return trimmed;
    case 'bool':
      // `true`/`false` (any case); anything else stays a string so the schema names the key.
      if (/^true$/i.test(trimmed)) return true;
      if (/^false$/i.test(trimmed)) return false;
      return trimmed;
    case 'list':
      return trimmed === ''
        ? []
        : trimmed
            .split(',')
            .map((item) => item.trim())
            .filter((item) => item !== '');
    case 'int':
    case 'number': {
      if (trimmed === '' || !/^-?[0-9]+(\.[0-9]+)?$/.test(trimmed)) return trimmed;
      return Number(trimmed);
    }
  }
}
