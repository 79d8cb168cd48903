/**
 * Git smart HTTP for tests: runs `git http-backend` (CGI) for repositories under `projectRoot`,
 * refusing any request without HTTP Basic credentials equal to `password` (user name free, as
 * GitHub accepts `x-access-token` and GitLab `oauth2`), or with `scheme: 'bearer'` without
 * `Authorization: Bearer <password>` (Bitbucket Data Center HTTP access tokens). Records each
 * request for assertions.
 */
import { spawn } from 'node:child_process';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** One git HTTP request seen by the handler. */
export interface GitHttpRequest {
  method: string;
  path: string;
  authorized: boolean;
  service: string | undefined;
  /** Response body bytes sent so far (what git receives: advertisements, negotiation, packs). */
  bytesSent: number;
}

/** Options of `createGitHttpHandler`. */
export interface GitHttpOptions {
  /** Directory holding the bare repositories, e.g. `<root>/acme/widgets.git`. */
  projectRoot: string;
  /** Password (the token) every request must carry. */
  password: string;
  /** URL prefix stripped before the repository path, e.g. `/git`. */
  prefix?: string;
  /** `basic` (default) or `bearer`: the only scheme accepted. */
  scheme?: 'basic' | 'bearer';
}

/** A request handler plus the log of what it saw. */
export interface GitHttpHandler {
  handle(req: IncomingMessage, res: ServerResponse): void;
  requests: GitHttpRequest[];
}

/** Creates a git smart-HTTP request handler backed by `git http-backend`. */
export function createGitHttpHandler(options: GitHttpOptions): GitHttpHandler {
  const requests: GitHttpRequest[] = [];
  const prefix = options.prefix ?? '';
  function handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const pathInfo = url.pathname.startsWith(prefix) ? url.pathname.slice(prefix.length) : url.pathname;
    const auth = req.headers.authorization ?? '';
    let authorized = false;
    let user = '';
    if (options.scheme === 'bearer') {
      authorized = auth === `Bearer ${options.password}`;
    } else if (auth.startsWith('Basic ')) {
      const [u, ...rest] = Buffer.from(auth.slice(6), 'base64').toString('utf8').split(':');
      user = u ?? '';
      authorized = rest.join(':') === options.password;
    }
    const service = url.searchParams.get('service') ?? pathInfo.split('/').pop();
    const record: GitHttpRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      authorized,
      service,
      bytesSent: 0,
    };
    requests.push(record);
    if (!authorized) {
      const challenge = options.scheme === 'bearer' ? 'Bearer realm="git"' : 'Basic realm="git"';
      res.writeHead(401, { 'WWW-Authenticate': challenge, 'Content-Type': 'text/plain' });
      res.end('authentication required\n');
      req.resume();
      return;
    }
    const child = spawn('git', ['http-backend'], {
      env: {
        PATH: process.env.PATH,
        GIT_PROJECT_ROOT: options.projectRoot,
        GIT_HTTP_EXPORT_ALL: '1',
        // CGI: PATH_INFO is the decoded path (`Fabrikam%20Fiber` names the directory `Fabrikam Fiber`).
        PATH_INFO: decodeURIComponent(pathInfo),
        REQUEST_METHOD: req.method ?? 'GET',
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        HTTP_CONTENT_ENCODING: String(req.headers['content-encoding'] ?? ''),
        GIT_PROTOCOL: String(req.headers['git-protocol'] ?? ''),
        REMOTE_USER: user || 'git',
        REMOTE_ADDR: '127.0.0.1',
      },
    });
    req.pipe(child.stdin);
    let headerDone = false;
    let buffered = Buffer.alloc(0);
    child.stdout.on('data', (chunk: Buffer) => {
      if (headerDone) {
        record.bytesSent += chunk.length;
        res.write(chunk);
        return;
      }
      buffered = Buffer.concat([buffered, chunk]);
      const end = buffered.indexOf('\r\n\r\n');
      if (end < 0) return;
      headerDone = true;
      let status = 200;
      const headers: Record<string, string> = {};
      for (const line of buffered.subarray(0, end).toString('utf8').split('\r\n')) {
        const colon = line.indexOf(':');
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
        else headers[name] = value;
      }
      res.writeHead(status, headers);
      record.bytesSent += buffered.length - (end + 4);
      res.write(buffered.subarray(end + 4));
    });
    child.stdout.on('end', () => res.end());
    child.on('error', () => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  }
  return { handle, requests };
}
