/**
 * The HTTP transport of the server's Kubernetes API client. `@kubernetes/client-node` sends through
 * undici's `fetch` by default (a WHATWG Request, Headers and a web ReadableStream per call); this
 * library sends the same requests through undici's lower-level `request` API on the dispatcher the
 * KubeConfig chose (its TLS settings, kept alive by `reuseConnections`), which costs about half as
 * much CPU per Job creation when Jobs are created by the hundred. The client's generated code, auth
 * and error handling (`ApiException`) are unchanged. `postJob` also skips the generated model
 * (de)serializer for the one call made per job, Job creation.
 */
import {
  ApiException,
  BatchV1Api,
  createConfiguration,
  type HttpLibrary,
  HttpMethod,
  type KubeConfig,
  RequestContext,
  ResponseContext,
  ServerConfiguration,
  type V1Job,
  wrapHttpLibrary,
} from '@kubernetes/client-node';
import { request, type Dispatcher } from 'undici';

/** The User-Agent of every API call (client-go style `<program>/<version>`). */
export const KUBERNETES_USER_AGENT = 'reviewbot';

/** Sends `context` (URL, method, headers, body, dispatcher) with undici `request`; reads the body. */
async function send(context: RequestContext): Promise<ResponseContext> {
  const body = context.getBody();
  if (body !== undefined && typeof body !== 'string' && !(body instanceof URLSearchParams)) {
    throw new TypeError('Kubernetes API client: form-data request bodies are not supported');
  }
  const headers: Record<string, string> = {
    'User-Agent': KUBERNETES_USER_AGENT,
    ...context.getHeaders(),
  };
  const response = await request(context.getUrl(), {
    method: context.getHttpMethod() as Dispatcher.HttpMethod,
    headers,
    body: body === undefined ? undefined : String(body),
    signal: context.getSignal(),
    dispatcher: context.getDispatcher() as Dispatcher | undefined,
  });
  const responseHeaders: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) responseHeaders[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  // Read the body at once so the connection is free for the next call whatever the caller does.
  const bytes = Buffer.from(await response.body.arrayBuffer());
  return new ResponseContext(response.statusCode, responseHeaders, {
    text: () => Promise.resolve(bytes.toString('utf8')),
    binary: () => Promise.resolve(bytes),
    stream: () => null,
  });
}

/** An `HttpLibrary` for `createConfiguration` that sends with undici `request` (see the module). */
export function undiciHttpLibrary(): HttpLibrary {
  return wrapHttpLibrary({ send });
}

/**
 * `POST /apis/batch/v1/namespaces/<namespace>/jobs` with `spec` as plain JSON (the Job models are
 * plain data: the generated serializer would only copy them), authenticated by `kc` like every
 * generated call. Resolves with the created Job as JSON (`metadata.creationTimestamp` a string).
 * @throws ApiException on a non-2xx answer (`body` = the API server's Status text), like the
 * generated `createNamespacedJob`; a network error as undici raises it.
 */
export async function postJob(kc: KubeConfig, namespace: string, spec: V1Job): Promise<V1Job> {
  const server = kc.getCurrentCluster()?.server.replace(/\/+$/, '');
  if (!server) throw new Error('No active cluster!');
  const context = new RequestContext(
    `${server}/apis/batch/v1/namespaces/${encodeURIComponent(namespace)}/jobs`,
    HttpMethod.POST,
  );
  context.setHeaderParam('Accept', 'application/json');
  context.setHeaderParam('Content-Type', 'application/json');
  context.setBody(JSON.stringify(spec));
  await kc.applySecurityAuthentication(context);
  const response = await send(context);
  const text = await response.body.text();
  if (response.httpStatusCode < 200 || response.httpStatusCode > 299) {
    throw new ApiException(response.httpStatusCode, 'Job creation failed', text, response.headers);
  }
  return JSON.parse(text) as V1Job;
}

/**
 * A `BatchV1Api` for `kc`'s current cluster that sends through `undiciHttpLibrary` with `kc` as
 * the auth method (bearer token, client certificates, exec plugins, as `makeApiClient` would).
 * @throws Error (`No active cluster!`) when `kc` has no current cluster, like `makeApiClient`.
 */
export function makeBatchApi(kc: KubeConfig): BatchV1Api {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('No active cluster!');
  return new BatchV1Api(
    createConfiguration({
      baseServer: new ServerConfiguration(cluster.server, {}),
      authMethods: { default: kc },
      httpApi: undiciHttpLibrary(),
    }),
  );
}
