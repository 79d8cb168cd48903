import { describe, expect, it } from 'vitest';
import { silentLogger } from '../logger.js';
import type { Platform } from '../platforms/types.js';
import {
  buildRulesPromptSection,
  ignoredPaths,
  loadRepoRules,
  mergeRules,
  parseRulesFile,
  rulesNotice,
  type ServerReviewSettings,
} from './repo-rules.js';

const SERVER: ServerReviewSettings = { incremental: true, instructions: 'Server says.', ignore: ['*.lock'] };

describe('parseRulesFile', () => {
  it('accepts every documented key, and an empty file', () => {
    const text = [
      'review:',
      '  instructions: Be strict.',
      '  path_instructions: [{path: "src/db/**", instructions: Parameterize queries.}]',
      '  ignore: ["docs/**"]',
      '  max_comments: 3',
      '  incremental: false',
    ].join('\n');
    expect(parseRulesFile(text)).toMatchObject({ ok: true, file: { review: { max_comments: 3 } } });
    expect(parseRulesFile('')).toEqual({ ok: true, file: null });
  });

  it.each([
    ['an unknown key', 'review:\n  max_comment: 3\n', 'unknown key `review.max_comment`'],
    ['an unknown top-level key', 'agent:\n  model: x\n', 'unknown key `agent`'],
    ['a wrong type', 'review:\n  incremental: maybe\n', '`review.incremental`'],
    ['a negative limit', 'review:\n  max_comments: -1\n', '`review.max_comments`'],
    [
      'a path instruction without a path',
      'review:\n  path_instructions: [{instructions: x}]\n',
      '`review.path_instructions.0.path`',
    ],
    ['bad YAML', 'review: [\n', '.reviewbot.yaml is not valid YAML'],
  ])('names the problem for %s', (_name, text, expected) => {
    const parsed = parseRulesFile(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problems.join('; ')).toContain(expected);
  });
});

describe('mergeRules', () => {
  it('adds instructions and globs, takes the smaller limit, and can only turn incremental off', () => {
    const file = {
      review: { instructions: 'Repo says.', ignore: ['docs/**'], max_comments: 9, incremental: true },
    };
    const rules = mergeRules({ ...SERVER, max_comments: 4 }, file);
    expect(rules).toMatchObject({
      instructions: ['Server says.', 'Repo says.'],
      ignore: ['*.lock', 'docs/**'],
      maxComments: 4,
      incremental: true,
    });
    expect(mergeRules({ ...SERVER, incremental: false }, file).incremental).toBe(false);
    expect(mergeRules(SERVER, { review: { incremental: false } }).incremental).toBe(false);
  });

  it('matches ignore globs on dotfiles too', async () => {
    const ignored = await ignoredPaths({ ignore: ['docs/**', '**/*.snap'] }, [
      'docs/.hidden/a.md',
      'src/__snapshots__/a.snap',
      'src/a.ts',
    ]);
    expect([...ignored]).toEqual(['docs/.hidden/a.md', 'src/__snapshots__/a.snap']);
  });
});

describe('loadRepoRules', () => {
  function platformWith(files: Record<string, string>, seen: string[] = []): Platform {
    return {
      getFileContent: (_repo: string, path: string, ref: string) => {
        seen.push(`${path}@${ref}`);
        return Promise.resolve(files[path] ?? null);
      },
    } as unknown as Platform;
  }

  it('reads the rules and guidelines at the base commit and fences them in the prompt', async () => {
    const seen: string[] = [];
    const platform = platformWith(
      {
        '.reviewbot.yaml':
          'review:\n  instructions: Repo says.\n  path_instructions: [{path: "src/**", instructions: Mind src.}]\n',
        'AGENTS.md': 'Be kind.',
        'REVIEW.md': 'x'.repeat(9000),
      },
      seen,
    );
    const rules = await loadRepoRules({
      platform,
      repoFullName: 'a/b',
      baseSha: 'base1',
      server: SERVER,
      logger: silentLogger(),
    });
    expect(seen.every((s) => s.endsWith('@base1'))).toBe(true);
    expect(rules.guidelines.map((g) => [g.path, g.truncated, g.text.length])).toEqual([
      ['AGENTS.md', false, 8],
      ['REVIEW.md', true, 8000],
    ]);
    const section = await buildRulesPromptSection(rules, ['src/a.ts', 'README.md']);
    expect(section).toMatch(/kind="review-instructions">\nServer says\.\n\nRepo says\.\n<\/untrusted-data-/);
    expect(section).toContain('For files matching src/** (src/a.ts):\nMind src.');
    expect(section).toMatch(/Project guidelines from REVIEW\.md \(base branch, truncated\)/);
    expect(rulesNotice(rules)).toBe('');
  });

  it('falls back to the server rules on a bad file and says which key', async () => {
    const platform = platformWith({ '.reviewbot.yaml': 'review:\n  ignore: "src/**"\n' });
    const rules = await loadRepoRules({
      platform,
      repoFullName: 'a/b',
      baseSha: 'b',
      server: SERVER,
      logger: silentLogger(),
    });
    expect(rules.ignore).toEqual(['*.lock']);
    expect(rulesNotice(rules)).toContain('`review.ignore`');
  });
});
