import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../errors.js';
import { readAzureDevOpsSettings } from './settings.js';

describe('Azure DevOps settings', () => {
  it('is disabled without AZURE_DEVOPS_TOKEN', () => {
    expect(readAzureDevOpsSettings({ AZURE_DEVOPS_URL: 'https://dev.azure.com/acme' })).toBeUndefined();
  });

  it('reads the organization or collection URL without trailing slashes', () => {
    expect(
      readAzureDevOpsSettings({
        AZURE_DEVOPS_TOKEN: 'pat',
        AZURE_DEVOPS_URL: 'https://tfs.example.com/tfs/DefaultCollection/',
        AZURE_DEVOPS_WEBHOOK_USER: 'hooks',
        AZURE_DEVOPS_WEBHOOK_SECRET: 's3cret',
      }),
    ).toEqual({
      token: 'pat',
      url: 'https://tfs.example.com/tfs/DefaultCollection',
      webhookUser: 'hooks',
      webhookSecret: 's3cret',
    });
  });

  it.each([
    [{ AZURE_DEVOPS_TOKEN: 'pat' }, /AZURE_DEVOPS_URL: required/],
    [
      { AZURE_DEVOPS_TOKEN: 'pat', AZURE_DEVOPS_URL: 'ftp://x' },
      /AZURE_DEVOPS_URL: must be an http\(s\) URL/,
    ],
    [
      { AZURE_DEVOPS_TOKEN: 'pat', AZURE_DEVOPS_URL: 'https://u:p@dev.azure.com/acme' },
      /must not contain credentials/,
    ],
    [
      {
        AZURE_DEVOPS_TOKEN: 'pat',
        AZURE_DEVOPS_URL: 'https://dev.azure.com/acme',
        AZURE_DEVOPS_WEBHOOK_SECRET: 'x',
      },
      /set both/,
    ],
  ])('refuses %j', (env, message) => {
    expect(() => readAzureDevOpsSettings(env)).toThrow(ConfigError);
    expect(() => readAzureDevOpsSettings(env)).toThrow(message);
  });
});
