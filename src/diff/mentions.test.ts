/**
 * `neutraliseMentions`: a mention in model text pings no one on any platform, code stays
 * byte-exact, and Markdown that renderers could read two ways is treated as prose.
 */
import { describe, expect, it } from 'vitest';
import { adversarialBodies } from '../../test/support/adversarial-markdown.js';
import { neutraliseMentions } from './mentions.js';

const J = '\u2060';
/** Writes the joiner as `⁠@⁠` → `@^` so expectations read. */
const shown = (text: string): string => text.replaceAll(`@${J}`, '@^');

describe('neutraliseMentions', () => {
  it.each([
    ['GitHub team', 'Ping @acme/security-team now.', 'Ping @^acme/security-team now.'],
    ['GitLab everyone', '@all please look', '@^all please look'],
    ['Bitbucket Cloud account id', 'Owner: @{557058:1a2b}.', 'Owner: @^{557058:1a2b}.'],
    [
      'Azure DevOps identity',
      'cc @<6F2A0C1E-0000-4000-8000-000000000000>',
      'cc @^<6F2A0C1E-0000-4000-8000-000000000000>',
    ],
    ['Data Center display name', 'ask @"Jane Doe"', 'ask @^"Jane Doe"'],
    ['in parentheses and emphasis', '(@a) **@b** _@c_', '(@^a) **@^b** _@^c_'],
    ['after markup that ends in a letter', '*x*@team <b>y</b>@team', '*x*@^team <b>y</b>@^team'],
    ['backslash-escaped', '\\@team', '\\@^team'],
    ['character references', '&#64;a &#x40;b &#0064;c &commat;d', '@^a @^b @^c @^d'],
    ['at the start of a line in a list', '- @team\n> @quoted', '- @^team\n> @^quoted'],
  ])('neutralises %s', (_name, input, expected) => {
    expect(shown(neutraliseMentions(input))).toBe(expected);
  });

  it.each([
    ['e-mail addresses', 'write to admin@example.com or a.b+c@d.org'],
    ['a lone @', 'a @ b, and a trailing @'],
    ['an npm link', 'see https://www.npmjs.com/package/@scope/name for details'],
    ['a link destination', '[docs](https://example.com/@scope/x)'],
    ['a reference after a letter', 'a&#64;b.com'],
    ['no @ at all', 'Nothing to see & nothing to ping.'],
  ])('leaves %s alone', (_name, input) => {
    expect(neutraliseMentions(input)).toBe(input);
  });

  it.each([
    ['a code span', 'Use `@Override` here.'],
    ['a double-backtick span holding a backtick', 'Run `` echo `@x` `` now.'],
    ['a backtick fence', 'Like this:\n\n```ts\n@Component({})\nclass A {}\n```\n'],
    ['a tilde fence', '~~~\n@decorator\n~~~'],
    ['a longer fence around a shorter one', '````md\n```\n@x\n```\n````'],
    ['a GitHub suggestion', 'Name it.\n\n```suggestion\nconst owner = "@acme/security-team";\n```'],
    ['a fence inside a list item', '- note:\n\n  ```\n  @x\n  ```\n'],
  ])('leaves code untouched: %s', (_name, input) => {
    expect(neutraliseMentions(input)).toBe(input);
  });

  it('neutralises prose around code and leaves the code exact', () => {
    const input = 'Tell @team: `@Inject` is wrong.\n\n```\n@Inject\n```\nThen @team again.';
    expect(shown(neutraliseMentions(input))).toBe(
      'Tell @^team: `@Inject` is wrong.\n\n```\n@Inject\n```\nThen @^team again.',
    );
  });

  it.each([
    // Raw HTML: its content is no code, and a fence inside it may be no fence.
    ['a fence inside an HTML block', '<div>\n```\n@x\n```\n</div>\n\n`@y`'],
    // A line left of the fence ends the list item and the fence with it.
    ['a fence cut short by its list item', '- a\n  ```\n@b\n  ```'],
    ['a fence in a quote', '> ```\n> @x\n> ```'],
    ['an indented fence', '    ```\n    @x\n    ```'],
    ['an unclosed fence', 'text\n\n```\n@x'],
    // The first run pairs with the second across the line break, so `@team` is text.
    ['a run left open on an earlier line', '`x\n` @team `y`'],
    // The escaped backtick opens nothing: the spans are `b` and nothing holds @t.
    ['an escaped backtick', '\\`a @t `b`'],
    // A table splits cells before code spans: "`a " and " @t`" are no spans.
    ['a table row', '| `a | @t` |'],
    // The tag takes the backtick in its attribute before a span can.
    ['a backtick inside a tag', '<span title="`">@t</span>`'],
    ['a lone carriage return', '`a`\r@t `b`'],
  ])('treats ambiguous Markdown as prose: %s', (_name, input) => {
    const out = neutraliseMentions(input);
    expect(out).not.toMatch(/@(?!\u2060)[\w{<"]/);
  });

  it('is idempotent', () => {
    for (const input of ['@a `@b` @c', '&#64;x', '<div>\n@y\n</div>', '@\u2060z']) {
      const once = neutraliseMentions(input);
      expect(neutraliseMentions(once)).toBe(once);
    }
  });

  it('stays linear on adversarial Markdown (65,536 characters)', () => {
    const started = performance.now();
    for (const { body } of adversarialBodies('@team ', 65_536)) neutraliseMentions(body);
    neutraliseMentions(`${'@-'.repeat(32_768)}`);
    neutraliseMentions(`https://a.b/${'_@x'.repeat(21_000)}`);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
