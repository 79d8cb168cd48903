/**
 * An API answer with an error status, as every platform client reports it, and the platform's own
 * words read from the error body. The bodies differ only in where the message sits:
 * `{"message": …}` (GitHub, Gitea, GitLab, Azure DevOps), `{"message": {field: [...]}}` and
 * `{"error": …}` (GitLab), `{"error": {"message": …}}` (Bitbucket Cloud),
 * `{"errors": [{"message": …}]}` (Bitbucket Data Center), `{"errors": ["…"]}` (Gitea).
 */

/** A request the platform answered with an error status (never holding the token). */
export class PlatformHttpError extends Error {
  readonly status: number;
  /** The answer's `Retry-After` header, when it had one. */
  readonly retryAfter: string | undefined;
  constructor(status: number, message: string, retryAfter?: string | null) {
    super(message);
    this.name = 'PlatformHttpError';
    this.status = status;
    this.retryAfter = retryAfter ?? undefined;
  }
}

/** Longest platform message kept, characters. */
const MAX_MESSAGE = 300;

function fromObject(body: object): string | undefined {
  const b = body as { message?: unknown; error?: unknown; errors?: unknown; error_description?: unknown };
  if (typeof b.message === 'string' && b.message !== '') return b.message;
  if (b.message !== undefined && b.message !== null && typeof b.message === 'object')
    return JSON.stringify(b.message);
  if (typeof b.error_description === 'string') return b.error_description;
  if (typeof b.error === 'string') return b.error;
  const nested = (b.error as { message?: unknown } | undefined)?.message;
  if (typeof nested === 'string') return nested;
  if (Array.isArray(b.errors) && b.errors.length > 0) {
    return b.errors
      .map((e: unknown) => (typeof e === 'string' ? e : (fromObject(Object(e)) ?? JSON.stringify(e))))
      .join('; ');
  }
  return undefined;
}

/**
 * The platform's message in an error `body` (its text, or already parsed JSON), on one line and at
 * most 300 characters; `fallback` (e.g. the status text) when the body says nothing readable.
 */
export function errorMessageOf(body: unknown, fallback: string): string {
  let parsed = body;
  if (typeof body === 'string') {
    try {
      parsed = JSON.parse(body) as unknown;
    } catch {
      parsed = body; // not JSON (a proxy's HTML page): keep the text
    }
  }
  const found =
    parsed !== null && typeof parsed === 'object'
      ? fromObject(parsed)
      : typeof parsed === 'string'
        ? parsed
        : undefined;
  const text = (found ?? '').replace(/\s+/g, ' ').trim();
  if (text === '') return fallback;
  return text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}…` : text;
}

/** Reads a non-2xx `response`'s body into a `PlatformHttpError`. */
export async function httpErrorOf(response: Response): Promise<PlatformHttpError> {
  const text = await response.text().catch(() => '');
  return new PlatformHttpError(
    response.status,
    errorMessageOf(text, response.statusText || `HTTP ${response.status}`),
    response.headers.get('retry-after'),
  );
}
