/**
 * The one place that maps a platform name to its username grammar (declared by each platform in
 * its own folder), so nothing outside `src/platforms` hard-codes which characters a username may
 * hold or where a mention ends.
 */
import { AZURE_DEVOPS_USERNAMES } from './azure-devops/names.js';
import { BITBUCKET_USERNAMES } from './bitbucket-cloud/names.js';
import { BITBUCKET_SERVER_USERNAMES } from './bitbucket-server/names.js';
import { GITEA_USERNAMES } from './gitea/names.js';
import { GITHUB_USERNAMES } from './github/names.js';
import { GITLAB_USERNAMES } from './gitlab/names.js';
import type { PlatformName } from './types.js';
import type { UsernameGrammar } from './username-grammar.js';

const GRAMMARS: Readonly<Record<PlatformName, UsernameGrammar>> = {
  github: GITHUB_USERNAMES,
  gitlab: GITLAB_USERNAMES,
  gitea: GITEA_USERNAMES,
  bitbucket: BITBUCKET_USERNAMES,
  'bitbucket-server': BITBUCKET_SERVER_USERNAMES,
  'azure-devops': AZURE_DEVOPS_USERNAMES,
};

/** The username grammar of `platform`. */
export function usernameGrammar(platform: PlatformName): UsernameGrammar {
  return GRAMMARS[platform];
}

export type { UsernameGrammar } from './username-grammar.js';
