/**
 * End to end: what a new user meets in the first minutes, through the built CLI as a child process
 * — `serve --help` names the webhook paths and the variables `serve` needs.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';

const PLATFORMS = ['github', 'gitlab', 'gitea', 'bitbucket', 'bitbucket-server', 'azure-devops'];

describe('reviewbot serve --help', () => {
  it('lists the port, every webhook path with its variables, and what serve needs', async () => {
    const result = await runCli(['serve', '--help'], {});
    expect(result.code).toBe(0);
    const help = result.stdout;
    expect(help).toContain('WEBHOOK_PORT (default 0.0.0.0:8080)');
    for (const platform of PLATFORMS) expect(help).toMatch(new RegExp(`^  /webhooks/${platform} `, 'm'));
    for (const variable of [
      'CODEHOST_TOKEN',
      'CODEHOST_WEBHOOK_SECRET',
      'GITLAB_WEBHOOK_SECRET',
      'GITEA_URL',
      'BITBUCKET_WEBHOOK_SECRET',
      'BITBUCKET_SERVER_URL',
      'AZURE_DEVOPS_WEBHOOK_USER',
      'REVIEWER_BOT_USERNAME',
      'ALLOWED_USERS',
      'AGENT_PROVIDER',
      'CLAUDE_CODE_OAUTH_TOKEN',
    ]) {
      expect(help).toContain(variable);
    }
    expect(help).toContain('GET /health');
  });
});
