import { describe, expect, it } from 'vitest';
import { azureAuthorization, isBearerToken } from './auth.js';

const JOB_TOKEN = 'eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.eyJzY3AiOiJhcHBfdG9rZW4ifQ.c2lnbmF0dXJl-_';

describe('Azure DevOps token scheme', () => {
  it('sends a personal access token as Basic with an empty user', () => {
    const legacy = 'a'.repeat(52);
    const current = `${'B'.repeat(76)}AZDO${'x'.repeat(4)}`;
    for (const pat of [legacy, current, 'ado-e2ePatThatMustNeverLeak0123456789abcdef']) {
      expect(isBearerToken(pat)).toBe(false);
      expect(azureAuthorization(pat)).toBe(`Basic ${Buffer.from(`:${pat}`).toString('base64')}`);
    }
  });

  it('sends a JWT (a pipeline job access token, System.AccessToken) as Bearer', () => {
    expect(isBearerToken(JOB_TOKEN)).toBe(true);
    expect(azureAuthorization(JOB_TOKEN)).toBe(`Bearer ${JOB_TOKEN}`);
  });

  it('does not take dotted text that is not a JWT for one', () => {
    for (const token of ['abc.def.ghi', 'eyJ.a', 'eyJa.b.c.d', 'eyJa.b c.d'])
      expect(isBearerToken(token)).toBe(false);
  });
});
