import { describe, expect, it } from 'vitest';
import { usernameGrammar } from '../platforms/usernames.js';
import type { PlatformName } from '../platforms/types.js';
import { makeComment } from './records.test-helper.js';
import { adversarialBodies } from '../../test/support/adversarial-markdown.js';
import {
  extractMention as extract,
  MENTION_SCAN_LIMIT,
  mentionableText,
  type MentionNames,
} from './mention.js';
import { routeEvent } from './route-event.js';

const names = { workerUsername: 'rb-worker', reviewerUsername: 'rb-review' };
const github = usernameGrammar('github');

/** The platform-independent cases below run with GitHub's grammar. */
function extractMention(body: string, config: MentionNames) {
  return extract(body, config, github);
}

describe("mention rule per platform (each platform's username grammar)", () => {
  // [body, GitHub: mentions rb?, GitLab: mentions rb?]
  it.each([
    ['@rb hi', true, true],
    ['@RB hi', true, true],
    ['hi @rb', true, true],
    ['@rb, please', true, true],
    ['@rb: please', true, true],
    ['(@rb)', true, true],
    ['@rb\nnext line', true, true],
    // a sentence ending right after the name: no username ends in "."
    ['@rb.', true, true],
    ['thanks @rb. next', true, true],
    ['@rb...', true, true],
    // `_` and `.` continue a GitLab username (rb_, rb.x), not a GitHub one
    ['@rb_', true, false],
    ['@rb_ hi', true, false],
    ['@rb_x hi', true, false],
    ['@rb.x', true, false],
    ['@rb..x', true, false],
    // GitLab: no username ends in `.git`, so `@rb.git` is the user rb.gi… — never rb
    ['@rb.git', true, false],
    // `-` and digits continue a username on both
    ['@rb-x', false, false],
    ['@rb- hi', false, false],
    ['@rb2 hi', false, false],
    // `/` is no username character
    ['@rb/team', true, true],
    // an e-mail address or a word before the @
    ['email@rb.com', false, false],
    ['mail_@rb hi', false, false],
    ['x@rb', false, false],
    // code
    ['`@rb`', false, false],
    ['```\n@rb\n```', false, false],
    ['> @rb', false, false],
  ] as const)('%j → GitHub %s, GitLab %s', (body, onGitHub, onGitLab) => {
    const rb = { reviewerUsername: 'rb' };
    expect(extract(body, rb, usernameGrammar('github')) !== undefined).toBe(onGitHub);
    expect(extract(body, rb, usernameGrammar('gitlab')) !== undefined).toBe(onGitLab);
  });

  it.each([
    ['github', undefined],
    ['gitlab', 'ignore'],
  ] as const)("routing on %s uses that platform's grammar (`@rb_`)", (platform: PlatformName, action) => {
    const comment = makeComment({ platform, body: '@rb_ look', authorUsername: 'alice' });
    const decision = routeEvent(comment, {
      reviewerUsername: 'rb',
      botIdentities: [],
      allowedUsers: ['alice'],
      allowedRepos: [],
      triggers: [],
    });
    expect(decision.action).toBe(action ?? 'job');
  });

  it('GitLab: a bot whose own name holds `.` or `_` is found, and not inside a longer name', () => {
    const gitlab = usernameGrammar('gitlab');
    expect(extract('@rb.bot_x hi', { reviewerUsername: 'rb.bot_x' }, gitlab)).toEqual({
      botType: 'reviewer',
      prompt: 'hi',
    });
    expect(extract('@rb.bot_xy hi', { reviewerUsername: 'rb.bot_x' }, gitlab)).toBeUndefined();
    expect(extract('@rb.bot hi', { reviewerUsername: 'rb' }, gitlab)).toBeUndefined();
  });
});

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

/**
 * The code-span rule as it was first written (quadratic: each run re-reads the text up to every
 * later run), kept as the reference the linear scan must agree with.
 */
function referenceCodeSpans(text: string): string {
  const chars = text.split('');
  const runs = [...text.matchAll(/`+/g)].map((m) => ({ start: m.index, length: m[0].length }));
  let i = 0;
  while (i < runs.length) {
    const open = runs[i]!;
    let closed = false;
    if (!(open.start > 0 && text[open.start - 1] === '\\')) {
      for (let j = i + 1; j < runs.length; j++) {
        const close = runs[j]!;
        if (/\n[ \t]*\n/.test(text.slice(open.start + open.length, close.start))) break;
        if (close.length === open.length) {
          for (let k = open.start; k < close.start + close.length; k++) if (chars[k] !== '\n') chars[k] = ' ';
          i = j + 1;
          closed = true;
          break;
        }
      }
    }
    if (!closed) i += 1;
  }
  return chars.join('');
}

describe('the mention scan is linear and bounded (issue 27)', () => {
  it('agrees with the reference code-span rule on 3,000 random bodies', () => {
    let seed = 27;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const pieces = ['`', '``', '```', '\\', '\n', ' ', '\t', 'x', '@rb', '\n\n', '\n \n'];
    for (let n = 0; n < 3000; n++) {
      let body = '';
      const length = Math.floor(rand() * 30);
      for (let i = 0; i < length; i++) body += pieces[Math.floor(rand() * pieces.length)];
      // No fence or quote lines here: those are blanked before the code-span pass.
      const plain = body.replace(/^ {0,3}(```|~~~|\s*>)/gm, 'y');
      expect(mentionableText(plain), JSON.stringify(plain)).toBe(referenceCodeSpans(plain));
    }
  });

  it.each(adversarialBodies('@rb please review ', 65_534).map((b) => [b.name, b.body] as const))(
    '%s (65,534 characters): the mention is found, the prompt is the rest',
    (_name, body) => {
      // The quadratic scan took 45 s and 14 s on the first two here (a synchronous test is not cut
      // off by vitest's timeout, hence the explicit bound; the linear one needs ~30 ms).
      const started = performance.now();
      const mention = extractMention(body, { reviewerUsername: 'rb' });
      expect(performance.now() - started).toBeLessThan(2000);
      expect(mention).toEqual({ botType: 'reviewer', prompt: body.replace('@rb', '').trim() });
    },
  );

  it.each(adversarialBodies('please review ', 1_000_000).map((b) => [b.name, b.body] as const))(
    '%s (1,000,000 characters, a GitLab note): no mention, scanned up to the limit only',
    (_name, body) => {
      expect(extract(`${body}@rb`, { reviewerUsername: 'rb' }, usernameGrammar('gitlab'))).toBeUndefined();
      expect(mentionableText(body)).toHaveLength(MENTION_SCAN_LIMIT);
    },
  );

  it('sees a mention followed by a character within the first MENTION_SCAN_LIMIT code units only', () => {
    const pad = (n: number) => 'x '.repeat(n / 2);
    const rb = { reviewerUsername: 'rb' };
    const atEnd = `${pad(MENTION_SCAN_LIMIT - 6)} @rb more text`;
    expect(extractMention(atEnd, rb)?.botType).toBe('reviewer');
    // What follows a name that ends right at the cut is not read: it may go on past the cut.
    expect(extractMention(`${pad(MENTION_SCAN_LIMIT - 4)} @rb more text`, rb)).toBeUndefined();
    expect(extractMention(`${pad(MENTION_SCAN_LIMIT)}@rb hi`, rb)).toBeUndefined();
    // Cut inside the name, or inside what may continue it.
    expect(extractMention(`${pad(MENTION_SCAN_LIMIT - 2)}@rb hi`, rb)).toBeUndefined();
    expect(extractMention(`${pad(MENTION_SCAN_LIMIT - 4)} @rb-x hi`, rb)).toBeUndefined();
    const gitlabDots = `${pad(MENTION_SCAN_LIMIT - 8)} @rb.....x`;
    expect(extract(gitlabDots, rb, usernameGrammar('gitlab'))).toBeUndefined();
    // A code span still open at the cut may close after it: a mention in it is not seen.
    const openSpan = `${pad(MENTION_SCAN_LIMIT - 10)}\` @rb ${pad(20)}\``;
    expect(extractMention(openSpan, rb)).toBeUndefined();
    // ... but a run left open in an earlier paragraph is literal text, as in a whole body.
    const earlier = `a \` @rb b\n\n${pad(MENTION_SCAN_LIMIT)}`;
    expect(extractMention(earlier, rb)).toEqual({
      botType: 'reviewer',
      prompt: earlier.replace('@rb', '').trim(),
    });
  });
});
