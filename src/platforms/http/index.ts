/**
 * The HTTP layer shared by the six platforms: one transport with one retry policy
 * (`createPlatformFetch`), one error class for error answers (`PlatformHttpError`) and one mapper
 * to the project's errors (`platformCall`, `toPlatformError`).
 */
export { errorMessageOf, httpErrorOf, PlatformHttpError } from './http-error.js';
export { platformCall, toPlatformError, type PlatformCall, type PlatformHttpNames } from './map-error.js';
export {
  createPlatformFetch,
  NetworkError,
  type PlatformFetchOptions,
  type PlatformHttpOptions,
} from './platform-fetch.js';
export {
  allowsRateLimitRetry,
  DEFAULT_RETRY_POLICY,
  decideRetry,
  isIdempotent,
  parseRetryAfter,
  type RetryDecision,
  type RetryPolicy,
} from './retry-policy.js';
