/** What a job needs from its host (the server process, or a cluster Job pod). */
import type { ToolSandbox } from '../agent/sandbox/types.js';
import type { AgentEvent, AgentRunner, ConversationMessage } from '../agent/types.js';
import type { RawConfig } from '../config/schema.js';
import { ReviewbotError } from '../errors.js';
import type { LearningsStore } from '../learnings/types.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { Platform, PlatformName } from '../platforms/types.js';
import type { SecretMasker } from '../secrets.js';
import type { JobProgress } from './progress.js';
import type { BotType, ConversationStore } from './types.js';

/** Dependencies of `runJob`, `processReviewerComment` and `processWorkerComment`. */
export interface JobContext {
  /** The enabled platforms, by name; a job uses the one its comment came from. */
  platforms: Map<PlatformName, Platform>;
  /** Builds the agent runner of a job (called once per job). */
  createRunner: (botType: BotType) => AgentRunner;
  /** Effective configuration: `workspace.base_dir`, `agent.max_turns`, bot usernames. */
  config: RawConfig;
  /** Conversations per session key (memory in standalone mode, the store in cluster mode). */
  store: ConversationStore;
  metrics: Metrics;
  /** Logger of the job (`runJob` adds `jobId`, `platform`, `repo`, `pr`). */
  logger: Logger;
  /** Masks secrets in anything a job posts or logs. */
  masker: SecretMasker;
  /** Aborts the agent and git (e.g. on shutdown). */
  signal?: AbortSignal;
  /** The tool sandbox detected at start-up (CONTRACT §16); default: detected on first use. */
  sandbox?: ToolSandbox;
  /** The job's progress report on the pull request (§18); `runJob` sets it. */
  progress?: JobProgress;
  /**
   * The process's learnings store (§20, `openLearningsStore`); default: one opened per job from
   * `store.url` / `workspace.base_dir` and closed when the job ends.
   */
  learnings?: LearningsStore;
}

/**
 * The platform a job's comment came from; with `scope`, restricted to that repository and bot
 * type where the platform can (`Platform.forJob`: least-privilege tokens, CONTRACT §16).
 * @throws ReviewbotError when that platform is not enabled in this process.
 */
export function platformFor(
  ctx: JobContext,
  name: PlatformName,
  scope?: { repoFullName: string; botType: BotType },
): Platform {
  const platform = ctx.platforms.get(name);
  if (!platform) throw new ReviewbotError(`platform ${name} is not configured in this process`);
  return scope && platform.forJob ? platform.forJob(scope.repoFullName, scope.botType) : platform;
}

/** The configured bot usernames (their comments count as the bot's own). */
export function configuredBotUsernames(config: RawConfig): string[] {
  return [config.reviewer.bot_username, config.worker.bot_username].filter(
    (name): name is string => name !== undefined,
  );
}

/**
 * A progress listener that logs, at debug level, phases, turns and the names of the tools called
 * (never tool inputs or model text, which may be large).
 */
export function logProgress(
  logger: Logger,
): (event: AgentEvent | { type: 'phase'; phase: string; message: string }) => void {
  return (event) => {
    if (event.type === 'phase') logger.debug({ phase: event.phase }, event.message);
    else if (event.type === 'turn')
      logger.debug({ turn: event.turn, maxTurns: event.maxTurns }, 'agent turn');
    else if (event.type === 'tool_call') logger.debug({ tool: event.tool }, 'tool call');
    else if (event.type === 'tool_result' && event.isError) {
      logger.debug({ tool: event.tool }, 'tool call refused or failed');
    }
  };
}

/** Most characters of conversation kept for the next job (about 50k tokens). */
export const MAX_CONVERSATION_CHARS = 200_000;

/**
 * The tail of `messages` kept for the next job: oldest messages are dropped until the rest fits in
 * `maxChars` characters (the last two messages, the latest exchange, are always kept), and the kept
 * part starts with a user message.
 */
export function trimConversation(
  messages: ConversationMessage[],
  maxChars: number = MAX_CONVERSATION_CHARS,
): ConversationMessage[] {
  let start = 0;
  let size = messages.reduce((sum, m) => sum + m.content.length, 0);
  while (start < messages.length - 2 && size > maxChars) {
    size -= messages[start]?.content.length ?? 0;
    start += 1;
  }
  while (start < messages.length - 1 && messages[start]?.role !== 'user') start += 1;
  return messages.slice(start);
}
