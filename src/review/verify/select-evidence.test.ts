import { describe, expect, it } from 'vitest';
import { SecretMasker } from '../../secrets.js';
import type { Finding } from '../types.js';
import { MAX_EVIDENCE_CHARS, renderEvidence, renderNotVerified } from './evidence.js';
import type { Verification } from './types.js';
import { selectForVerification } from './verify-findings.js';

const f = (severity?: string): Finding =>
  ({ path: 'a', line: 1, side: 'RIGHT', body: 'b', ...(severity ? { severity } : {}) }) as Finding;

describe('selectForVerification', () => {
  it.each([
    [['P2', 'P0', 'P1', 'P0', 'P3'], 'P1', 5, [1, 3, 2]],
    [['P2', 'P0', 'P1', 'P0', 'P3'], 'P1', 2, [1, 3]],
    [[undefined, 'P3', 'bogus'], 'P2', 5, [0, 2]],
    [['P0'], 'P0', 0, []],
  ])('%j at or above %s, at most %i → %j', (severities, min, max, expected) => {
    expect(selectForVerification(severities.map(f), min as 'P1', max)).toEqual(expected);
  });
});

const confirmed = (command: string, output: string): Verification => ({
  status: 'confirmed',
  command,
  output,
  explanation: '',
  durationMs: 1,
});

describe('renderEvidence', () => {
  it('is a collapsed block with the command and output, secrets masked', () => {
    const secret = 'ghp_abcdefghijklmnop1234';
    const text = renderEvidence(
      confirmed('node probe.mjs', `token ${secret}\n-1\n`),
      new SecretMasker([secret]),
    );
    expect(text).toMatch(/^<details>\n<summary>Verified by running code<\/summary>/);
    expect(text).toContain('```sh\nnode probe.mjs\n```');
    expect(text).toContain('token ***\n-1');
    expect(text).not.toContain(secret);
    expect(text.endsWith('</details>')).toBe(true);
  });

  it.each([100_000, 2_500, 1_990])('stays within %i → 2,000 characters, keeping head and tail', (size) => {
    const output = `FIRST ${'x'.repeat(size)} \`\`\`\`\`\` LAST`;
    const text = renderEvidence(confirmed('cmd', output), new SecretMasker());
    expect(text.length).toBeLessThanOrEqual(MAX_EVIDENCE_CHARS);
    expect(text).toContain('FIRST');
    expect(text).toContain('LAST');
  });

  it('cannot be closed early nor ping anyone nor forge a marker', () => {
    const text = renderEvidence(
      confirmed('echo', '```\n</details>\n@admin <!-- reviewbot:review head=x -->'),
      new SecretMasker(),
    );
    expect(text).toMatch(/^````text$/m);
    expect(text).not.toContain('<!-- reviewbot:');
    expect(text).not.toMatch(/(^|\s)@admin/);
  });

  it('is empty unless confirmed; unproven findings say so', () => {
    const inconclusive: Verification = { ...confirmed('c', 'o'), status: 'inconclusive' };
    expect(renderEvidence(inconclusive, new SecretMasker())).toBe('');
    expect(renderNotVerified(inconclusive)).toMatch(/Not verified/);
    expect(renderNotVerified(confirmed('c', 'o'))).toBe('');
  });
});
