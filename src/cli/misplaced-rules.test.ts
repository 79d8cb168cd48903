import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { misplacedRulesWarning } from './misplaced-rules.js';

describe('misplacedRulesWarning', () => {
  let dir: string;
  const noSystem = '/nonexistent/reviewbot/config.yaml';
  const warning = (env: NodeJS.ProcessEnv = {}, configFile?: string) =>
    misplacedRulesWarning({
      cwd: dir,
      env,
      systemConfigPath: noSystem,
      ...(configFile ? { configFile } : {}),
    });

  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-misplaced-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('names the repository-rule keys of ./reviewbot.yaml and points at .reviewbot.yaml', () => {
    writeFileSync(
      path.join(dir, 'reviewbot.yaml'),
      'review:\n  instructions: be brief\n  path_instructions: [{path: "src/**", instructions: x}]\n  max_cost_usd: 1\n',
    );
    expect(warning()).toBe(
      './reviewbot.yaml sets review.instructions, review.path_instructions: that file configures ' +
        "reviewbot itself, for this run; a repository's review rules belong in .reviewbot.yaml " +
        '(with a leading dot) at its root, where every review of its pull requests reads them',
    );
  });

  it.each([
    ['only server keys', 'agent: {max_turns: 5}\nreview: {max_cost_usd: 1}\n'],
    ['an empty file', ''],
    ['a file that is not YAML', 'review: [\n'],
  ])('says nothing for %s', (_name, text) => {
    writeFileSync(path.join(dir, 'reviewbot.yaml'), text);
    expect(warning()).toBeUndefined();
  });

  it('says nothing when .reviewbot.yaml sits beside it, or another configuration file is in use', () => {
    writeFileSync(path.join(dir, 'reviewbot.yaml'), 'review: {ignore: ["dist/**"]}\n');
    expect(warning()).toBeDefined();
    const other = path.join(dir, 'etc', 'config.yaml');
    mkdirSync(path.dirname(other));
    writeFileSync(other, 'review: {ignore: ["dist/**"]}\n');
    expect(warning({}, other)).toBeUndefined();
    expect(warning({ REVIEWBOT_CONFIG: other })).toBeUndefined();
    writeFileSync(path.join(dir, '.reviewbot.yaml'), 'review: {ignore: ["dist/**"]}\n');
    expect(warning()).toBeUndefined();
  });
});
