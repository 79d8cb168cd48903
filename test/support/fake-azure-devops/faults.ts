/** One-shot injected answers of the fake Azure DevOps (`failNext`), e.g. a 503 with `Retry-After`. */
import type { ServerResponse } from 'node:http';

interface Fault {
  method: string;
  path: RegExp;
  status: number;
  headers: Record<string, string>;
}

/** The queue of faults: `failNext` adds one, `answer` uses the first that matches a request. */
export function createFaults() {
  const faults: Fault[] = [];
  return {
    /**
     * Answers the next API request with `method` (`*` = any) whose path matches `path` with
     * `status`, Azure DevOps' error JSON and extra `headers`, instead of handling it. Used once.
     */
    failNext(method: string, path: RegExp, status: number, headers: Record<string, string> = {}): void {
      faults.push({ method, path, status, headers });
    },
    /** Answers `res` with the first fault matching the request and returns its status, else undefined. */
    answer(method: string, path: string, res: ServerResponse): number | undefined {
      const at = faults.findIndex((f) => (f.method === '*' || f.method === method) && f.path.test(path));
      const fault = at >= 0 ? faults.splice(at, 1)[0] : undefined;
      if (!fault) return undefined;
      res.writeHead(fault.status, { 'content-type': 'application/json; charset=utf-8', ...fault.headers });
      res.end(JSON.stringify({ message: 'injected fault', typeKey: 'InjectedFaultException' }));
      return fault.status;
    },
  };
}
