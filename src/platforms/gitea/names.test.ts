import { describe, expect, it } from 'vitest';
import { extractMention } from '../../jobs/mention.js';
import { usernameGrammar } from '../usernames.js';
import { isGiteaFullName, isGiteaRepoName, isGiteaUsername } from './names.js';

describe('Gitea names (IsValidUsername, IsUsableRepoName)', () => {
  it.each([
    ['rb.bot', true],
    ['rb-bot', true],
    ['rb_bot', true],
    ['Gitea-Actions', true],
    ['a', true],
    ['7up', true],
    ['x'.repeat(40), true],
    ['x'.repeat(41), false],
    ['-rb', false],
    ['.rb', false],
    ['_rb', false],
    ['rb.', false],
    ['rb-', false],
    ['rb..bot', false],
    ['rb._bot', false],
    ['rb bot', false],
    ['rb[bot]', false],
    ['rbé', false],
    ['', false],
  ])('username %j → %s', (name, ok) => {
    expect(isGiteaUsername(name)).toBe(ok);
  });

  it.each([
    ['widgets', true],
    ['.profile', true],
    ['_x-y.z', true],
    ['-x', true],
    ['r'.repeat(100), true],
    ['r'.repeat(101), false],
    ['.', false],
    ['..', false],
    ['-', false],
    ['a..b', false],
    ['a.git', false],
    ['a.WIKI', false],
    ['a.rss', false],
    ['a.atom', false],
    ['wid gets', false],
    ['wid/gets', false],
    ['', false],
  ])('repository %j → %s', (name, ok) => {
    expect(isGiteaRepoName(name)).toBe(ok);
  });

  it.each([
    ['acme/widgets', true],
    ['rb.bot/x', true],
    ['acme/..', false],
    ['acme', false],
    ['a/b/c', false],
  ])('full name %j → %s', (name, ok) => {
    expect(isGiteaFullName(name)).toBe(ok);
  });
});

describe("mentions end where Gitea's mentionPattern ends them", () => {
  const gitea = usernameGrammar('gitea');
  const found = (body: string, name: string) => extractMention(body, { reviewerUsername: name }, gitea);

  it.each(['rb.bot', 'rb-bot', 'rb_bot'])(
    '@%s is found with its own name, not a prefix or a longer name',
    (name) => {
      expect(found(`@${name} look`, name)).toEqual({ botType: 'reviewer', prompt: 'look' });
      expect(found(`@${name}x look`, name)).toBeUndefined();
      expect(found(`@${name}.x look`, name)).toBeUndefined();
      expect(found(`@${name} look`, 'rb')).toBeUndefined();
    },
  );

  it.each([
    ['@rb hi', true],
    ['hi @rb', true],
    ['@rb', true],
    ['@rb.', true],
    ['@rb. next', true],
    ['@rb, please', true],
    ['@rb: please', true],
    ['@rb? please', true],
    ["@rb's idea", true],
    ['(@rb)', true],
    ['[@rb]', true],
    ['@rb\nnext', true],
    // other users or no user: Gitea needs whitespace or the end after the punctuation
    ['@rb.x', false],
    ['@rb..', false],
    ['@rb_', false],
    ['@rb-', false],
    ['@rb/team', false],
    ['@rb,x', false],
    // not after a word, e-mail or other punctuation
    ['mail@rb hi', false],
    ['x:@rb hi', false],
    ['`@rb`', false],
    ['```\n@rb\n```', false],
    ['> @rb', false],
  ])('%j mentions rb: %s', (body, ok) => {
    expect(found(body, 'rb') !== undefined).toBe(ok);
  });
});
