/**
 * A file path read at a ref stays a file path: a `.` or `..` segment (a crafted tree can hold one,
 * and the URL parser would resolve it) never turns the raw-file request into another API call with
 * the bot's token, e.g. a file of another repository the bot can read.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGiteaKit, REPO, type GiteaKit } from './gitea-test-kit.test-helper.js';

describe('Gitea getFileContent: dot segments', () => {
  let kit: GiteaKit;
  beforeEach(async () => {
    kit = await createGiteaKit();
  });
  afterEach(async () => {
    await kit?.close();
  });

  it.each(['../../../../user', 'src/../../../../../user', './README.md', 'a//b'])(
    'refuses %j without asking Gitea',
    async (path) => {
      const platform = kit.platform();
      const read = platform.getFileContent!(REPO, path, kit.scenario.baseSha);
      await expect(read).rejects.toThrow(/not a repository file path/);
    },
  );
});
