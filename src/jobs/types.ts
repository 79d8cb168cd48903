/**
 * Records and seams of the job layer (seed "Handlers", "Session queue", "Session store"; CONTRACT
 * §7): a JobPayload flows from the webhook dispatcher into a JobRunner (in-process queue now,
 * Kubernetes Jobs in cluster mode), which runs the REVIEWER or WORKER job.
 */
import type { ConversationMessage } from '../agent/types.js';
import type { PlatformName, ReviewComment } from '../platforms/types.js';

/** The two bot types (CONTRACT §6). */
export type BotType = 'worker' | 'reviewer';

/** Result of mention extraction (CONTRACT §7 "Mention"). */
export interface Mention {
  botType: BotType;
  prompt: string;
}

/** One job, as serialized for a cluster Job pod (CONTRACT §7 "JobPayload"). */
export interface JobPayload {
  version: 1;
  /** UUID. */
  jobId: string;
  botType: BotType;
  comment: ReviewComment;
  prompt: string;
  /** ISO 8601 time of enqueueing. */
  enqueuedAt: string;
}

/** Session key (seed part 2): one conversation and one queue per key. */
export interface SessionKey {
  platform: PlatformName;
  repoFullName: string;
  prNumber: number;
  botType: BotType;
}

/** `platform:repo:pr:botType` (CONTRACT §9 without the `reviewbot:queue:` prefix). */
export function sessionKeyString(key: SessionKey): string {
  return `${key.platform}:${key.repoFullName}:${key.prNumber}:${key.botType}`;
}

/** The session key of a job. */
export function sessionKeyOf(payload: JobPayload): SessionKey {
  return {
    platform: payload.comment.platform,
    repoFullName: payload.comment.repoFullName,
    prNumber: payload.comment.prNumber,
    botType: payload.botType,
  };
}

/** A conversation kept between jobs of one session key. */
export interface StoredConversation {
  /** The agent's session id (API runner: generated; code-agent CLI: its own, for `resume`). */
  sessionId: string;
  messages: ConversationMessage[];
  /** ISO 8601. */
  updatedAt: string;
}

/** Where conversations live: in memory (standalone) or the store (cluster mode). */
export interface ConversationStore {
  load(key: SessionKey): Promise<StoredConversation | undefined>;
  save(key: SessionKey, conversation: StoredConversation): Promise<void>;
}

/** How a finished job ended. */
export interface JobResult {
  status: 'succeeded' | 'failed';
  /** Short, secret-free reason when failed. */
  error?: string;
}

/**
 * Runs jobs: standalone = an in-process per-key FIFO queue; cluster mode = Kubernetes Jobs.
 * `submit` never blocks on the job itself.
 */
export interface JobRunner {
  /**
   * Queues `payload` on its session key. `before`, when given, is awaited (errors ignored) before
   * the job starts: e.g. the `eyes` reaction, posted before the job starts but not awaited by the
   * webhook response. Returns nothing when queueing is synchronous (in-process), or a promise that
   * resolves once the job is durably queued (the store) and rejects when it could not be, so the
   * webhook is acknowledged only for a job that cannot be lost.
   */
  submit(payload: JobPayload, options?: { before?: Promise<unknown> }): void | Promise<void>;
  /** Jobs queued or running. */
  depth(): number;
  /**
   * Stops taking jobs, waits up to `timeoutMs` for running ones, and returns the jobs that did not
   * finish or never started (to be logged as dropped).
   */
  shutdown(timeoutMs: number): Promise<JobPayload[]>;
}
