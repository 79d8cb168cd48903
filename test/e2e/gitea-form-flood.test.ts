/**
 * Badly signed 25 MiB form bodies on `/webhooks/gitea` (the built `reviewbot serve`): each is
 * answered 401 without being parsed, so `/health` keeps answering while several are in flight,
 * and the server's memory does not grow with them. Measured against a same-run baseline: the
 * same number of badly signed JSON bodies of the same size, which the server only hashes. A
 * form parsed before the signature check (`URLSearchParams` over millions of fields: about 1 s
 * and hundreds of MB each) keeps `/health` waiting for seconds.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGitea, type FakeGitea } from '../support/fake-gitea/index.js';
import { postRaw, startServe, type ServeProcess } from '../support/serve-process.js';

const TOKEN = 'gitea-flood-token-0123456789';
const SECRET = 'gitea-flood-hook-secret-0123456789';
const MIB = 1024 * 1024;
/** Just under the 25 MiB limit, so every body is read and checked. */
const SIZE = 25 * MIB - 4096;
const IN_FLIGHT = 3;
const WRONG_SIGNATURE = 'ab'.repeat(32);

/**
 * A form made to be slow: a payload of escapes the signature check must decode (half the body),
 * then millions of tiny fields, which a parser of the whole form would turn into strings.
 */
function hostileForm(): Buffer {
  const payload = Buffer.from(`payload=${'%41'.repeat(Math.floor(SIZE / 2 / 3))}`);
  const fields = Buffer.from('&a=b'.repeat(Math.floor((SIZE - payload.length) / 4)));
  return Buffer.concat([payload, fields]);
}

/** A JSON body of the same size. */
function plainJson(size: number): Buffer {
  return Buffer.from(`{"text":"${'a'.repeat(size - 11)}"}`);
}

/** The server process's peak resident memory (VmHWM), MB. */
function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

interface Storm {
  statuses: number[];
  /** The slowest `/health` answer while the bodies were in flight, ms. */
  worstHealthMs: number;
}

describe('reviewbot serve: badly signed 25 MiB bodies on the Gitea route', () => {
  let gitea: FakeGitea;
  let server: ServeProcess;
  let root: string;
  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-gitea-flood-'));
    gitea = await startFakeGitea({ token: TOKEN, username: 'reviewbot' });
    server = await startServe({
      GITEA_TOKEN: TOKEN,
      GITEA_URL: gitea.url,
      GITEA_WEBHOOK_SECRET: SECRET,
      REVIEWER_BOT_USERNAME: 'rb.reviewer',
      AGENT_PROVIDER: 'anthropic',
      AGENT_MODEL: 'claude-test',
      ANTHROPIC_API_KEY: 'sk-ant-never-used',
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
      WORKSPACE_BASE_DIR: path.join(root, 'workspaces'),
      CLEANUP_INTERVAL_HOURS: '0',
      HOME: root,
    });
  });
  afterAll(async () => {
    await server?.stop();
    await gitea?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  /** Sends `IN_FLIGHT` copies of `body` at once while probing `/health` back to back. */
  async function storm(body: Buffer, contentType: string): Promise<Storm> {
    let running = true;
    let worstHealthMs = 0;
    const prober = (async () => {
      while (running) {
        const asked = performance.now();
        await (await fetch(`${server.url}/health`)).text();
        worstHealthMs = Math.max(worstHealthMs, performance.now() - asked);
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    const headers = {
      'content-type': contentType,
      'x-gitea-event': 'issue_comment',
      'x-gitea-event-type': 'pull_request_comment',
      'x-gitea-signature': WRONG_SIGNATURE,
    };
    const statuses = await Promise.all(
      Array.from({ length: IN_FLIGHT }, (_, i) =>
        postRaw(`${server.url}/webhooks/gitea`, body, { ...headers, 'x-gitea-delivery': `flood-${i}` }),
      ),
    );
    running = false;
    await prober;
    return { statuses, worstHealthMs };
  }

  it('answers 401 to each, and /health and memory fare as with JSON bodies of the same size', async () => {
    const form = hostileForm();
    const json = plainJson(form.length);
    const pid = server.child.pid!;
    // Baseline first (it sets the peak memory of holding the bodies), then the forms, twice each.
    const baseline = [await storm(json, 'application/json')];
    const peakAfterJson = peakRssMb(pid);
    const forms = [await storm(form, 'application/x-www-form-urlencoded')];
    baseline.push(await storm(json, 'application/json'));
    forms.push(await storm(form, 'application/x-www-form-urlencoded'));
    const peakAfterForms = peakRssMb(pid);

    for (const run of [...baseline, ...forms]) expect(run.statuses).toEqual(Array(IN_FLIGHT).fill(401));
    const jsonWorst = Math.max(...baseline.map((r) => r.worstHealthMs));
    const formBest = Math.min(...forms.map((r) => r.worstHealthMs));
    const figures = `forms ${forms.map((r) => r.worstHealthMs.toFixed(0)).join('/')} ms, json ${baseline
      .map((r) => r.worstHealthMs.toFixed(0))
      .join('/')} ms; peak RSS ${peakAfterJson.toFixed(0)} → ${peakAfterForms.toFixed(0)} MB`;
    // Decoding the payload for the HMAC costs a few times hashing it: a bounded, linear cost.
    expect(formBest, figures).toBeLessThanOrEqual(3 * jsonWorst + 500);
    expect(peakAfterForms - peakAfterJson, figures).toBeLessThan(100);
    const unauthorized = server.logs.filter((l) => l.msg === 'webhook signature verification failed');
    expect(unauthorized).toHaveLength(4 * IN_FLIGHT);
  }, 120_000);
});
