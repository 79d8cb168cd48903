import { describe, expect, it } from 'vitest';
import { fromWire, toWire } from '../../platforms/wire-markers.js';
import { decodeProbe, encodeProbe } from '../verify/probe.js';
import { parseFindingMarker, renderFindingMarker } from './markers.js';

describe('a finding marker carrying the probe that confirmed it', () => {
  const probe = encodeProbe({
    command: 'node --test probe.test.mjs',
    files: [{ path: 'probe.test.mjs', content: "import test from 'node:test';\n" }],
  }) as string;

  it('round-trips through the HTML form and the wire form of Bitbucket and Azure DevOps', () => {
    const marker = { fp: '0123456789abcdef', side: 'RIGHT' as const, n: 2, severity: 'P1' as const, probe };
    const body = `The sum subtracts.\n\n${renderFindingMarker(marker)}`;
    expect(parseFindingMarker(body)).toEqual(marker);
    expect(parseFindingMarker(fromWire(toWire(body)))).toEqual(marker);
    expect(decodeProbe(parseFindingMarker(body)?.probe as string)?.command).toBe(
      'node --test probe.test.mjs',
    );
  });

  it('reads a marker without a probe as before, and writes none for a malformed one', () => {
    const plain = '<!-- reviewbot:finding fp=0123456789abcdef side=LEFT n=1 sev=P0 -->';
    expect(parseFindingMarker(`x\n${plain}`)).toEqual({
      fp: '0123456789abcdef',
      side: 'LEFT',
      n: 1,
      severity: 'P0',
    });
    expect(
      renderFindingMarker({
        fp: '0123456789abcdef',
        side: 'LEFT',
        n: 1,
        severity: 'P0',
        probe: 'bad probe -->',
      }),
    ).toBe(plain);
    expect(
      parseFindingMarker(`x\n<!-- reviewbot:finding fp=0123456789abcdef side=LEFT n=1 sev=P0 probe=a b -->`),
    ).toBeUndefined();
  });
});
