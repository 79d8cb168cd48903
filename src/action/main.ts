/**
 * Entry point of the reviewbot GitHub Action (`action.yml` runs `node dist/src/action/main.js`).
 * Wiring only: see `run-action.ts`.
 */
import { runAction } from './run-action.js';

// The AI SDK prints warnings to stderr by default; our runner logs them through pino instead.
globalThis.AI_SDK_LOG_WARNINGS = false;

process.exitCode = await runAction(process.env);
