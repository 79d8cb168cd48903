/**
 * `reviewbot serve` refuses to start in cluster mode (`kubernetes.image` set) without `store.url`
 * or without `agent.provider`: exit 2, a message naming each missing key, nothing listening.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';
import { freePort } from '../support/serve-process.js';
import { JOB_IMAGE } from './cluster-fixture.js';

const BASE: NodeJS.ProcessEnv = {
  CODEHOST_TOKEN: 'ghp_startupTokenThatMustNeverLeak000000',
  CODEHOST_API_URL: 'http://127.0.0.1:9',
  CODEHOST_WEBHOOK_SECRET: 'whsec-startup',
  REVIEWER_BOT_USERNAME: 'review-bot',
  K8S_IMAGE: JOB_IMAGE,
  WEBHOOK_HOST: '127.0.0.1',
};

describe('reviewbot serve in cluster mode: start-up checks', () => {
  it.each([
    ['store.url', { AGENT_PROVIDER: 'anthropic' }, ['store.url (STORE_URL)'], ['agent.provider']],
    [
      'agent.provider',
      { STORE_URL: 'redis://127.0.0.1:1/0' },
      ['agent.provider (AGENT_PROVIDER)'],
      ['store.url'],
    ],
    ['both', {}, ['store.url (STORE_URL)', 'agent.provider (AGENT_PROVIDER)'], []],
  ])('without %s: exit 2 naming the missing settings', async (_name, extra, named, notNamed) => {
    const port = await freePort();
    const result = await runCli(['serve'], { ...BASE, ...extra, WEBHOOK_PORT: String(port) }, 20_000);
    expect(result.code).toBe(2);
    for (const text of named) expect(result.stderr).toContain(text);
    for (const text of notNamed) expect(result.stderr).not.toContain(text);
    expect(result.stderr).toContain('cluster mode');
    expect(result.stderr).not.toContain(BASE.CODEHOST_TOKEN);
    expect(result.stdout).not.toContain('listening');
    // Nothing was left listening on the port.
    const probe = await fetch(`http://127.0.0.1:${port}/health`).then(
      (res) => res.status,
      () => 'refused',
    );
    expect(probe).toBe('refused');
  });
});
