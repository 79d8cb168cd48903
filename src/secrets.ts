/**
 * Secret handling: which environment variables hold secrets, building a scrubbed environment for
 * subprocesses, and masking secret values in any text (logs, errors, tool output, comments).
 */

/** Environment variable names that hold secrets, or that match secret-looking names. */
const SECRET_NAME = /(TOKEN|SECRET|PASSWORD|PASSWD|PRIVATE_KEY|API_KEY|APIKEY|CREDENTIAL|AUTH)/i;
const SECRET_EXACT = new Set(['STORE_URL', 'REDIS_URL', 'DATABASE_URL', 'KUBECONFIG', 'AGENT_API_KEY']);

/** True when the variable `name` may hold a secret and must not reach a tool subprocess. */
export function isSecretEnvName(name: string): boolean {
  return SECRET_EXACT.has(name.toUpperCase()) || SECRET_NAME.test(name);
}

/** The values of every secret-looking variable of `env` that are long enough to be worth masking. */
export function secretValues(env: NodeJS.ProcessEnv): string[] {
  const values: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value && value.length >= 6 && isSecretEnvName(name)) values.push(value);
    // The password of a store URL such as redis://:pw@host:6379/0.
    if (value && /^[a-z+]+:\/\/[^/]*:[^@/]+@/i.test(value)) {
      try {
        const pw = decodeURIComponent(new URL(value).password);
        if (pw.length >= 4) values.push(pw);
      } catch {
        // not a URL after all
      }
    }
  }
  return values;
}

/** Masks secrets in text. `add` registers more values (e.g. a freshly minted App installation token). */
export class SecretMasker {
  private readonly secrets = new Set<string>();
  /** `secrets`, longest first; rebuilt after `add`. */
  private ordered: string[] = [];
  constructor(values: Iterable<string> = []) {
    for (const value of values) this.add(value);
  }

  /**
   * Registers `value` (and its JSON-escaped, URL-encoded and per-line forms) as a secret. Short
   * values are ignored.
   */
  add(value: string | undefined): void {
    if (!value || value.length < 6) return;
    this.secrets.add(value);
    const escaped = JSON.stringify(value).slice(1, -1);
    if (escaped !== value) this.secrets.add(escaped);
    const encoded = encodeURIComponent(value);
    if (encoded !== value) this.secrets.add(encoded);
    if (value.includes('\n')) {
      for (const line of value.split(/\r?\n/)) if (line.trim().length >= 16) this.secrets.add(line.trim());
    }
    this.ordered = [...this.secrets].sort((a, b) => b.length - a.length);
  }

  /**
   * Returns `text` with every occurrence of every registered secret replaced by `***`; longer
   * secrets first, so a secret that contains another is masked whole.
   */
  mask(text: string): string {
    let out = text;
    for (const secret of this.ordered) {
      if (out.includes(secret)) out = out.split(secret).join('***');
    }
    return out;
  }
}

/** Variables a tool subprocess may see; everything else, and every secret, is dropped. */
const SAFE_ENV = ['PATH', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'TERM', 'TMPDIR'];

/**
 * Builds the environment of a tool subprocess: only harmless variables of `env`, with HOME pointed
 * at `home`, never a token, key or store URL (CONTRACT §8).
 */
export function scrubbedEnv(env: NodeJS.ProcessEnv, home: string): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { HOME: home };
  for (const name of SAFE_ENV) {
    const value = env[name];
    if (value !== undefined && !isSecretEnvName(name)) out[name] = value;
  }
  out.GIT_TERMINAL_PROMPT = '0';
  return out;
}
