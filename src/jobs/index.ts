/**
 * The job layer (seed "Handlers", "Session queue", "Session store", "Workspace cleaner"): routing
 * and dispatching webhook events, the in-process runner, the REVIEWER and WORKER jobs, the
 * conversation store and the workspace cleaner. Wiring code imports from here.
 */
export * from './types.js';
export { extractMention, type MentionNames } from './mention.js';
export { isBotAuthor, routeEvent, type RouteDecision, type RouteRules, type Trigger } from './route-event.js';
export {
  createDispatcher,
  handleComment,
  isAllowedUser,
  type DispatchOutcome,
  type Dispatcher,
  type DispatcherOptions,
  type HandleCommentDeps,
} from './handle-comment.js';
export { createSessionQueue, type SessionQueue, type SessionQueueOptions } from './session-queue.js';
export {
  createInProcessJobRunner,
  type InProcessJobRunner,
  type InProcessJobRunnerOptions,
} from './in-process-runner.js';
export {
  createMemoryConversationStore,
  DEFAULT_MAX_CONVERSATIONS,
  type MemoryConversationStore,
} from './conversation-store.js';
export { configuredBotUsernames, type JobContext } from './job-context.js';
export { failureReason, failureReplyBody, runJob } from './run-job.js';
export { processReviewerComment, type ReviewerJobOutcome } from './reviewer-job.js';
export { processWorkerComment, isSameRepository, type WorkerJobOutcome } from './worker-job.js';
export { replyTargetOf } from './reply-target.js';
export {
  createWorkspaceCleaner,
  findWorkspaces,
  type CleanReport,
  type FoundWorkspace,
  type WorkspaceCleaner,
  type WorkspaceCleanerOptions,
} from './cleaner.js';
