/**
 * The mention grammar of Bitbucket Data Center as the job code applies it (`extractMention` with
 * the platform's grammar): `@username` as Data Center stores a picked mention in comment text.
 */
import { describe, expect, it } from 'vitest';
import { extractMention } from '../../src/jobs/mention.js';
import { usernameGrammar } from '../../src/platforms/usernames.js';

const grammar = usernameGrammar('bitbucket-server');

describe('Bitbucket Data Center mentions', () => {
  it.each([
    ['@rb-reviewer please look', 'rb-reviewer', 'please look'],
    ['Hi @rb-reviewer.', 'rb-reviewer', 'Hi .'],
    ['(@RB-Reviewer) again', 'rb-reviewer', '() again'],
  ])('%j mentions %s', (body, name, prompt) => {
    expect(extractMention(body, { reviewerUsername: name }, grammar)).toEqual({
      botType: 'reviewer',
      prompt,
    });
  });

  it.each([
    ['@rb-reviewer2 hi', 'rb-reviewer'],
    ['@rb-reviewer.bot hi', 'rb-reviewer'],
    ['@rb-reviewer@example.com hi', 'rb-reviewer'],
    ['mail@rb-reviewer hi', 'rb-reviewer'],
    ['`@rb-reviewer` hi', 'rb-reviewer'],
    ['> @rb-reviewer quoted', 'rb-reviewer'],
  ])('%j does not mention %s', (body, name) => {
    expect(extractMention(body, { reviewerUsername: name }, grammar)).toBeUndefined();
  });
});
