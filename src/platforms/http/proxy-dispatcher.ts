/**
 * The proxy of the platform API calls, from the environment as curl and git read it: `HTTP_PROXY`
 * for `http:` URLs, `HTTPS_PROXY` (else `HTTP_PROXY`) for `https:` URLs, `NO_PROXY` for the hosts
 * reached directly; each lower-case form wins over its upper-case one. Node's own `fetch` ignores
 * these variables, so the platform transport hands it a dispatcher: undici's `EnvHttpProxyAgent`,
 * wrapped in `Dispatcher1Wrapper` because Node 22's built-in fetch (undici 6) speaks the old
 * dispatcher handler API that undici 8 no longer accepts ("invalid onRequestStart method"). The
 * answer is then still a `globalThis.Response`.
 *
 * undici is imported only when a proxy variable is set: `reviewbot serve` without a proxy never
 * loads it. (Loading it also makes an undici 8 `Agent` the process' global dispatcher, as the
 * Kubernetes client's import does.)
 */
import type { Dispatcher } from 'undici';

/** The variables naming a proxy, each lower-case form before its upper-case one. */
const HTTP_VARIABLES = ['http_proxy', 'HTTP_PROXY'] as const;
const HTTPS_VARIABLES = ['https_proxy', 'HTTPS_PROXY'] as const;
const NO_PROXY_VARIABLES = ['no_proxy', 'NO_PROXY'] as const;

/** What the dispatcher is made from; `undefined` fields are unset. */
interface ProxySettings {
  httpProxy: string | undefined;
  httpsProxy: string | undefined;
  noProxy: string;
}

/**
 * The one dispatcher of the process, shared by every platform client so that they share its
 * connections; made again (and the old one closed once idle) only if the variables change.
 */
let shared: { key: string; dispatcher: Promise<Dispatcher> } | undefined;

/** The first of `names` set to a non-empty value in `env`. */
function firstSet(env: NodeJS.ProcessEnv, names: readonly string[]): string | undefined {
  for (const name of names) {
    const value = env[name];
    if (value !== undefined && value !== '') return value;
  }
  return undefined;
}

/**
 * The dispatcher to pass as `dispatcher` to `globalThis.fetch` for a platform API call, or
 * `undefined` when neither `HTTP_PROXY` nor `HTTPS_PROXY` is set (send directly; undici is not
 * loaded). `NO_PROXY` is a comma or space list of host names, `.suffix` or `*.suffix` domains,
 * `host:port` entries, or `*` (no proxy at all). An empty variable counts as unset.
 * @throws Error when a proxy variable is not a URL (the message does not repeat the value, which
 *   may hold the proxy's password).
 */
export async function proxyDispatcher(env: NodeJS.ProcessEnv = process.env): Promise<Dispatcher | undefined> {
  const settings: ProxySettings = {
    httpProxy: firstSet(env, HTTP_VARIABLES),
    httpsProxy: firstSet(env, HTTPS_VARIABLES),
    noProxy: firstSet(env, NO_PROXY_VARIABLES) ?? '',
  };
  if (settings.httpProxy === undefined && settings.httpsProxy === undefined) return undefined;
  const key = JSON.stringify(settings);
  if (shared?.key !== key) {
    const previous = shared?.dispatcher;
    shared = { key, dispatcher: createDispatcher(settings) };
    void previous?.then((old) => old.close()).catch(() => undefined);
  }
  return shared.dispatcher;
}

async function createDispatcher(settings: ProxySettings): Promise<Dispatcher> {
  for (const value of [settings.httpProxy, settings.httpsProxy]) {
    if (value !== undefined && !URL.canParse(value)) {
      throw new Error('HTTP_PROXY or HTTPS_PROXY is set but is not a URL (e.g. http://proxy.internal:3128)');
    }
  }
  const { Dispatcher1Wrapper, EnvHttpProxyAgent } = await import('undici');
  return new Dispatcher1Wrapper(
    new EnvHttpProxyAgent({
      // '' (not undefined): undici would read process.env again.
      httpProxy: settings.httpProxy ?? '',
      httpsProxy: settings.httpsProxy ?? '',
      noProxy: settings.noProxy,
    }),
  );
}
