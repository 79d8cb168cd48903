import { describe, expect, it } from 'vitest';
import { isSecretEnvName, scrubbedEnv, SecretMasker, secretValues } from './secrets.js';

const TOKEN = 'ghs_16C7e42F292c6912E7710c838347Ae178B4a';

describe('SecretMasker', () => {
  it('masks every occurrence of a secret, not only the first', () => {
    const masker = new SecretMasker([TOKEN]);
    const text = `a ${TOKEN} b ${TOKEN}${TOKEN} c\n${TOKEN}`;
    expect(masker.mask(text)).toBe('a *** b ****** c\n***');
  });

  it('masks each of several secrets wherever they occur', () => {
    const masker = new SecretMasker(['first-secret', 'second-secret']);
    expect(masker.mask('second-secret, first-secret and second-secret')).toBe('***, *** and ***');
  });

  it('masks a secret that contains another one whole (the longer first)', () => {
    // Registered short first: masking it first would leave the rest of the long one readable.
    const masker = new SecretMasker(['abcdef', 'abcdef-the-rest-of-it']);
    const masked = masker.mask('x abcdef-the-rest-of-it y abcdef z');
    expect(masked).toBe('x *** y *** z');
    expect(masked).not.toContain('the-rest-of-it');
  });

  it('masks the JSON-escaped form of a secret (as it appears in a JSON log line or API body)', () => {
    const secret = 'pa"ss\\word\twith-escapes';
    const masker = new SecretMasker([secret]);
    const json = JSON.stringify({ password: secret, again: secret });
    expect(json).not.toContain(secret);
    expect(masker.mask(json)).toBe('{"password":"***","again":"***"}');
  });

  it('masks a multi-line secret whole, JSON-escaped, and line by line', () => {
    const key = [
      '-----BEGIN RSA PRIVATE KEY-----',
      'MIIEowIBAAKCAQEAx4UbaDzY6Z0S6m2Jx8QyLq7PVq0dJ1mN',
      'p0J3V6m5Yk5J4Q1xQk3sX0k2wFqKq1dQe9v8s7t6u5r4q3pB',
      '-----END RSA PRIVATE KEY-----',
    ].join('\n');
    const masker = new SecretMasker([key]);
    expect(masker.mask(`key:\n${key}\nend`)).toBe('key:\n***\nend');
    expect(masker.mask(JSON.stringify({ key }))).toBe('{"key":"***"}');
    // One line of it, e.g. a tool printing the file with line numbers or wrapped.
    const line = key.split('\n')[1]!;
    expect(masker.mask(`2: ${line}`)).toBe('2: ***');
    // CRLF line endings (a key written on Windows) are split the same way.
    const crlf = new SecretMasker([key.replaceAll('\n', '\r\n')]);
    expect(crlf.mask(`line ${line} end`)).toBe('line *** end');
  });

  it('does not register short lines of a multi-line secret (they would mask ordinary words)', () => {
    const masker = new SecretMasker(['short\nMIIEowIBAAKCAQEAx4UbaDzY6Z0S']);
    expect(masker.mask('a short word')).toBe('a short word');
    expect(masker.mask('MIIEowIBAAKCAQEAx4UbaDzY6Z0S')).toBe('***');
  });

  it('registers each line of 16 characters or more, trimmed; indentation does not count', () => {
    const masker = new SecretMasker([
      ['exactly-16-chars', '      fourteen-chars', '    indented-line-of-the-key', 'x'].join('\n'),
    ]);
    // 16 characters is enough.
    expect(masker.mask('[exactly-16-chars]')).toBe('[***]');
    // An indented line of 14 characters is still too short.
    expect(masker.mask('fourteen-chars')).toBe('fourteen-chars');
    // A long indented line is masked without its indentation too.
    expect(masker.mask('key: indented-line-of-the-key')).toBe('key: ***');
  });

  it('masks the URL-encoded form of a secret (as it appears in a URL or query string)', () => {
    const secret = 'p@ss/word+with?reserved&chars';
    const masker = new SecretMasker([secret]);
    const url = `https://user:${encodeURIComponent(secret)}@git.example.com/r.git?t=${encodeURIComponent(secret)}`;
    expect(masker.mask(url)).toBe('https://user:***@git.example.com/r.git?t=***');
  });

  it('ignores values too short to mask safely, and added later values count', () => {
    const masker = new SecretMasker(['12345', '', undefined as unknown as string]);
    masker.add(undefined);
    masker.add('abc');
    expect(masker.mask('12345 abc')).toBe('12345 abc');
    masker.add('minted-installation-token');
    expect(masker.mask('t=minted-installation-token')).toBe('t=***');
    // Six characters is enough.
    masker.add('123456');
    expect(masker.mask('123456')).toBe('***');
  });

  it('leaves text without a secret unchanged', () => {
    const masker = new SecretMasker([TOKEN]);
    expect(masker.mask('nothing to see')).toBe('nothing to see');
    expect(new SecretMasker().mask('x')).toBe('x');
  });
});

describe('isSecretEnvName', () => {
  it.each([
    'GITHUB_TOKEN',
    'gitlab_token',
    'WEBHOOK_SECRET',
    'DB_PASSWORD',
    'SMTP_PASSWD',
    'GITHUB_APP_PRIVATE_KEY',
    'ANTHROPIC_API_KEY',
    'SOME_APIKEY',
    'AWS_CREDENTIALS',
    'BASIC_AUTH',
    'STORE_URL',
    'redis_url',
    'DATABASE_URL',
    'KUBECONFIG',
    'AGENT_API_KEY',
  ])('%s is secret', (name) => {
    expect(isSecretEnvName(name)).toBe(true);
  });

  it.each(['PATH', 'HOME', 'LANG', 'NODE_ENV', 'PORT', 'GITLAB_URL'])('%s is not', (name) => {
    expect(isSecretEnvName(name)).toBe(false);
  });
});

describe('secretValues', () => {
  it('collects secret-named values of six characters or more and store URL passwords', () => {
    const values = secretValues({
      GITHUB_TOKEN: TOKEN,
      SHORT_TOKEN: '12345',
      SIX_TOKEN: '123456',
      PATH: '/usr/bin',
      REDIS_URL: 'redis://:s%40cret-pw@redis:6379/0',
      OTHER: 'postgres://user:pw12@db/x',
      TINY: 'postgres://user:pw1@db/x',
      EMPTY_TOKEN: '',
    });
    expect(values).toContain(TOKEN);
    expect(values).toContain('123456');
    expect(values).not.toContain('12345');
    expect(values).not.toContain('/usr/bin');
    // The whole URL (secret-named) and its decoded password.
    expect(values).toContain('redis://:s%40cret-pw@redis:6379/0');
    expect(values).toContain('s@cret-pw');
    // A URL password in any variable; four characters is enough, three is not.
    expect(values).toContain('pw12');
    expect(values).not.toContain('pw1');
    expect(values).not.toContain('postgres://user:pw12@db/x');
  });

  it('skips a value that only looks like a URL with a password', () => {
    expect(secretValues({ X: 'a://b:c%zz@d' })).toEqual([]);
  });

  it('masks a store password wherever the masker built from the environment sees it', () => {
    const masker = new SecretMasker(secretValues({ REDIS_URL: 'redis://:hunter2-pw@redis:6379' }));
    expect(masker.mask('AUTH failed for hunter2-pw')).toBe('AUTH failed for ***');
  });
});

describe('scrubbedEnv', () => {
  it('keeps only harmless variables, sets HOME and disables git prompts', () => {
    const env = scrubbedEnv(
      {
        PATH: '/usr/bin',
        LANG: 'C.UTF-8',
        LC_ALL: 'C',
        LC_CTYPE: 'C',
        TZ: 'UTC',
        TERM: 'xterm',
        TMPDIR: '/tmp',
        HOME: '/root',
        GITHUB_TOKEN: TOKEN,
        REDIS_URL: 'redis://:pw@x',
        NODE_OPTIONS: '--require /tmp/evil.js',
      },
      '/work/home',
    );
    expect(env).toEqual({
      HOME: '/work/home',
      PATH: '/usr/bin',
      LANG: 'C.UTF-8',
      LC_ALL: 'C',
      LC_CTYPE: 'C',
      TZ: 'UTC',
      TERM: 'xterm',
      TMPDIR: '/tmp',
      GIT_TERMINAL_PROMPT: '0',
    });
  });

  it('leaves out harmless variables that are not set', () => {
    // Not even as undefined keys: the child gets no variable of that name.
    expect(scrubbedEnv({}, '/h')).toStrictEqual({ HOME: '/h', GIT_TERMINAL_PROMPT: '0' });
  });
});
