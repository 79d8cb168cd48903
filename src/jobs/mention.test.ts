import { describe, expect, it } from 'vitest';
import { extractMention, mentionableText } from './mention.js';

const names = { workerUsername: 'rb-worker', reviewerUsername: 'rb-review' };

describe('extractMention', () => {
  it.each([
    // [body, bot type or undefined, prompt]
    ['@rb-review please look at the tests', 'reviewer', 'please look at the tests'],
    ['@rb-worker fix the typo', 'worker', 'fix the typo'],
    ['Hey @RB-Worker, rename v3', 'worker', 'Hey , rename v3'],
    ['@rb-review', 'reviewer', ''],
    ['  @rb-review  \n', 'reviewer', ''],
    ['first line\n@rb-worker do it\nthird line', 'worker', 'first line\n do it\nthird line'],
    ['(@rb-review) check this', 'reviewer', '() check this'],
    ['@rb-review: check', 'reviewer', ': check'],
    ['@rb-review.', 'reviewer', '.'],
    // both mentioned: the first decides; only that mention is removed
    ['@rb-worker fix it, then @rb-review review it', 'worker', 'fix it, then @rb-review review it'],
    ['@rb-review look, then @rb-worker fix', 'reviewer', 'look, then @rb-worker fix'],
    // the same bot twice: the first occurrence is removed
    ['@rb-worker a @rb-worker b', 'worker', 'a @rb-worker b'],
    // followed by a username character: another account
    ['@rb-reviewer please', undefined, ''],
    ['@rb-review2 please', undefined, ''],
    ['@rb-review-bot please', undefined, ''],
    // preceded by a word or e-mail character: not a mention
    ['mail ops@rb-review.io', undefined, ''],
    ['a.b@rb-worker', undefined, ''],
    // [bot] suffix written by the user is part of the mention
    ['@rb-review[bot] go', 'reviewer', 'go'],
    // inside code: inline spans, fenced blocks, quotes
    ['`@rb-review` is the bot', undefined, ''],
    ['use ``x `@rb-review` y`` here', undefined, ''],
    ['```\n@rb-worker fix\n```', undefined, ''],
    ['~~~ts\n@rb-worker fix\n~~~', undefined, ''],
    ['````\n```\n@rb-worker\n````', undefined, ''],
    ['```\nunclosed @rb-worker', undefined, ''],
    ['> @rb-worker said something', undefined, ''],
    ['  > quoted @rb-worker', undefined, ''],
    ['> @rb-worker old\n\n@rb-review new', 'reviewer', '> @rb-worker old\n\n new'],
    [
      '```\n@rb-worker\n```\n@rb-review after the block',
      'reviewer',
      '```\n@rb-worker\n```\n after the block',
    ],
    // an unclosed backtick is literal, so the mention counts
    ['a ` b @rb-worker c', 'worker', 'a ` b  c'],
    // a code span does not continue over a blank line
    ['`a\n\n@rb-worker b`', 'worker', '`a\n\n b`'],
    // an escaped backtick opens no span
    ['\\`@rb-worker x`', 'worker', '\\` x`'],
    ['no mention here', undefined, ''],
    ['', undefined, ''],
  ] as const)('%j → %s', (body, botType, prompt) => {
    const mention = extractMention(body, names);
    if (botType === undefined) expect(mention).toBeUndefined();
    else expect(mention).toEqual({ botType, prompt });
  });

  it.each([
    ['configured with [bot], written without', { reviewerUsername: 'acme-app[bot]' }, '@acme-app hi'],
    ['configured with [bot], written with', { reviewerUsername: 'acme-app[bot]' }, '@acme-app[bot] hi'],
    ['configured without [bot], written with', { reviewerUsername: 'acme-app' }, '@acme-app[bot] hi'],
    ['case-insensitive suffix', { reviewerUsername: 'acme-app' }, '@ACME-APP[BOT] hi'],
  ])('[bot] suffix: %s', (_label, config, body) => {
    expect(extractMention(body, config)).toEqual({ botType: 'reviewer', prompt: 'hi' });
  });

  it('finds nothing when no bot username is configured', () => {
    expect(extractMention('@rb-worker hi', {})).toBeUndefined();
  });

  it('lets the reviewer win when both names are the same', () => {
    expect(extractMention('@bot hi', { workerUsername: 'bot', reviewerUsername: 'bot' })).toEqual({
      botType: 'reviewer',
      prompt: 'hi',
    });
  });

  it('treats regex characters in usernames literally', () => {
    expect(extractMention('@a.b hi', { workerUsername: 'a+b' })).toBeUndefined();
    expect(extractMention('@a+b hi', { workerUsername: 'a+b' })).toEqual({ botType: 'worker', prompt: 'hi' });
  });

  it('keeps offsets for text outside the ASCII range', () => {
    expect(extractMention('🚀 `x` @rb-worker ship it 🎉', names)).toEqual({
      botType: 'worker',
      prompt: '🚀 `x`  ship it 🎉',
    });
  });
});

describe('mentionableText', () => {
  it('blanks code and quotes but keeps the length and line breaks', () => {
    const body = 'a `b` c\n> q\n```\nx\n```\nd';
    const text = mentionableText(body);
    expect(text).toHaveLength(body.length);
    expect(text).toBe('a     c\n   \n   \n \n   \nd');
  });
});
