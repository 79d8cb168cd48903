/**
 * What each platform needs from the environment, as the CLI says it: `serve --help`, the errors of
 * `serve` about a missing webhook secret and of `review` about a missing token. One table, so the
 * three never disagree. Plain data: `index.ts` imports it for `--help` without loading any command.
 */
import type { PlatformName } from '../platforms/types.js';

/** One platform's variables, as named to users. */
export interface PlatformVariables {
  /** Product name, e.g. `Bitbucket Data Center`. */
  label: string;
  /** What enables the platform, e.g. `GITEA_TOKEN and GITEA_URL`. */
  credentials: string;
  /** What `serve` needs to verify its webhooks, e.g. `GITLAB_WEBHOOK_SECRET`. */
  webhookSecret: string;
}

/** Every platform's variables, in the order `serve --help` lists them. */
export const PLATFORM_VARIABLES: Record<PlatformName, PlatformVariables> = {
  github: {
    label: 'GitHub',
    credentials: 'CODEHOST_TOKEN (or GITHUB_TOKEN, or the GitHub App variables)',
    webhookSecret: 'CODEHOST_WEBHOOK_SECRET (or GITHUB_WEBHOOK_SECRET)',
  },
  gitlab: {
    label: 'GitLab',
    credentials: 'GITLAB_TOKEN',
    webhookSecret: 'GITLAB_WEBHOOK_SECRET',
  },
  gitea: {
    label: 'Gitea / Forgejo',
    credentials: 'GITEA_TOKEN and GITEA_URL',
    webhookSecret: 'GITEA_WEBHOOK_SECRET',
  },
  bitbucket: {
    label: 'Bitbucket Cloud',
    credentials: 'BITBUCKET_TOKEN',
    webhookSecret: 'BITBUCKET_WEBHOOK_SECRET',
  },
  'bitbucket-server': {
    label: 'Bitbucket Data Center',
    credentials: 'BITBUCKET_SERVER_TOKEN and BITBUCKET_SERVER_URL',
    webhookSecret: 'BITBUCKET_SERVER_WEBHOOK_SECRET',
  },
  'azure-devops': {
    label: 'Azure DevOps',
    credentials: 'AZURE_DEVOPS_TOKEN and AZURE_DEVOPS_URL',
    webhookSecret: 'AZURE_DEVOPS_WEBHOOK_USER and AZURE_DEVOPS_WEBHOOK_SECRET',
  },
};

/**
 * The text `reviewbot serve --help` prints after its options: the address it listens on, the
 * webhook path of each platform with the variables that enable it, and the other variables it needs.
 */
export function serveHelpText(): string {
  const rows = Object.entries(PLATFORM_VARIABLES).flatMap(([name, vars]) => [
    `  ${`/webhooks/${name}`.padEnd(27)}${vars.label.padEnd(23)}${vars.credentials}`,
    `  ${''.padEnd(50)}+ ${vars.webhookSecret}`,
  ]);
  return [
    '',
    'Listens on WEBHOOK_HOST:WEBHOOK_PORT (default 0.0.0.0:8080). Webhooks (POST), one per platform:',
    ...rows,
    'A platform is served when its credentials are set; serve refuses to start without its',
    'webhook secret. Also: GET /health (200 {"status":"ok"}) and GET /metrics (Prometheus).',
    '',
    'Also needed (environment variables, or the YAML file of --config):',
    '  REVIEWER_BOT_USERNAME and/or WORKER_BOT_USERNAME: the names the bots answer to',
    '  ALLOWED_USERS: who may trigger the bots by comment (comma list; empty: nobody)',
    '  AGENT_PROVIDER and its key (e.g. ANTHROPIC_API_KEY); unset: Claude Code, with',
    '    ANTHROPIC_API_KEY or CLAUDE_CODE_OAUTH_TOKEN',
    'Often set: REVIEWER_TRIGGERS (e.g. pr_opened,pr_push), ALLOWED_REPOS, WORKSPACE_BASE_DIR,',
    '  STORE_URL (Redis), K8S_IMAGE (cluster mode), LOG_LEVEL (default info; logs are JSON on stdout).',
    'Every variable: docs/configuration.md',
    '',
  ].join('\n');
}
