/**
 * Reading a file of the pull request's BASE commit (rules a pull request is reviewed by, such as
 * `.gitattributes`, never come from its head): through the platform's API when it offers
 * `getFileContent(repo, path, ref)`, else through git in the review's workspace.
 */
import type { Logger } from '../logger.js';
import type { Platform, PullRequestInfo } from '../platforms/types.js';
import type { SecretMasker } from '../secrets.js';
import { readBaseFile } from '../workspace/read-base-file.js';
import { readBaseHeads } from '../workspace/read-base-heads.js';
import type { BaseHeadsReader } from './triage.js';

/** Input of `baseFileReader`. */
export interface BaseFileReaderInput {
  platform: Platform;
  pr: PullRequestInfo;
  /** The review's workspace (a clone of the head branch). */
  dir: string;
  logger: Logger;
  masker?: SecretMasker;
  signal?: AbortSignal;
}

type FileContentApi = (repo: string, path: string, ref: string) => Promise<unknown>;

/**
 * A reader of base-commit files. It never throws: a file that is absent or cannot be read is
 * `undefined` (logged as a warning when reading failed).
 */
export function baseFileReader(input: BaseFileReaderInput): (path: string) => Promise<string | undefined> {
  const { platform, pr } = input;
  const api = (platform as { getFileContent?: FileContentApi }).getFileContent;
  return async (path) => {
    try {
      if (api) {
        const text = await api.call(platform, pr.repoFullName, path, pr.baseSha);
        return typeof text === 'string' ? text : undefined;
      }
      return await readBaseFile({
        dir: input.dir,
        sha: pr.baseSha,
        path,
        cloneUrl: pr.headCloneUrl,
        credentials: await platform.getGitCredentials(),
        ...(input.masker ? { masker: input.masker } : {}),
        ...(input.signal ? { signal: input.signal } : {}),
      });
    } catch (error) {
      input.logger.warn({ err: String(error), path }, 'could not read a file of the base commit');
      return undefined;
    }
  };
}

/**
 * Triage's reader of base versions (modified files' first lines and sizes, §15), through git in the
 * review's workspace: one fetch of the base commit by SHA when missing, one `git grep` for the
 * banner lines, never whole files through the platform's API. Never throws: when the base commit
 * cannot be read, nothing is known (logged as a warning) and only added files get content rules.
 */
export function baseHeadsReader(input: BaseFileReaderInput): BaseHeadsReader {
  const { platform, pr } = input;
  return async (request) => {
    try {
      const heads = await readBaseHeads({
        dir: input.dir,
        sha: pr.baseSha,
        cloneUrl: pr.headCloneUrl,
        credentials: await platform.getGitCredentials(),
        ...request,
        ...(input.masker ? { masker: input.masker } : {}),
        ...(input.signal ? { signal: input.signal } : {}),
      });
      if (!heads)
        input.logger.warn({ sha: pr.baseSha }, 'could not fetch the base commit to read base versions');
      return heads;
    } catch (error) {
      input.logger.warn({ err: String(error) }, 'could not read the base versions of modified files');
      return undefined;
    }
  };
}
