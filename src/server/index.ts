/** The webhook HTTP server (CONTRACT §5). */
export { createServer, DEFAULT_BODY_LIMIT_BYTES, DEFAULT_DEDUPE_CAPACITY } from './app.js';
export type { CreateServerOptions, Dispatch, DispatchOutcome } from './types.js';
