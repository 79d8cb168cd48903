/**
 * The mention grammar of Bitbucket Cloud as the job code applies it (`extractMention` with the
 * platform's grammar): `@nickname`, and `@{account id}` (what Bitbucket's editor stores in
 * `content.raw` when a user is picked from the list) when the bot username is configured in that form.
 */
import { describe, expect, it } from 'vitest';
import { extractMention } from '../../src/jobs/mention.js';
import { usernameGrammar } from '../../src/platforms/usernames.js';

const grammar = usernameGrammar('bitbucket');
const ID = '{557058:6f1c0e5a-1b2c-4d3e-9f00-123456789abc}';

describe('Bitbucket Cloud mentions', () => {
  it.each([
    ['@rb-reviewer please look', 'rb-reviewer', 'please look'],
    ['Hi @rb-reviewer.', 'rb-reviewer', 'Hi .'],
    [`${'@'}${ID} please look`, ID, 'please look'],
    [`thanks (@${ID})`, ID, 'thanks ()'],
  ])('%j mentions %s', (body, name, prompt) => {
    expect(extractMention(body, { reviewerUsername: name }, grammar)).toEqual({
      botType: 'reviewer',
      prompt,
    });
  });

  it.each([
    ['@rb-reviewer2 hi', 'rb-reviewer'],
    ['mail@rb-reviewer hi', 'rb-reviewer'],
    ['`@rb-reviewer` hi', 'rb-reviewer'],
    [`@{557058:other} hi`, ID],
  ])('%j does not mention %s', (body, name) => {
    expect(extractMention(body, { reviewerUsername: name }, grammar)).toBeUndefined();
  });
});
