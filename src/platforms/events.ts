/**
 * Incoming events as platforms hand them to the product (CONTRACT §6, §7): the normalized
 * `ReviewComment`, and the webhook verification and parsing every platform implements.
 * Re-exported by `types.ts`.
 */
import type { DiffSide, PlatformName } from './records.js';

/** Kinds of incoming events that may start a job (CONTRACT §7 `eventType`). */
export type EventType = 'comment' | 'pr_opened' | 'pr_push' | 'pr_reopened' | 'pr_ready_for_review';

/**
 * A platform webhook normalized (CONTRACT §7 "ReviewComment"). Produced only by a platform's webhook
 * parser; nothing downstream reads raw payloads. Fields the event does not carry are empty strings
 * (e.g. an `issue_comment` has no head SHA: jobs fetch the pull request anyway).
 */
export interface ReviewComment {
  platform: PlatformName;
  repoFullName: string;
  prNumber: number;
  prBranch: string;
  baseBranch: string;
  headSha: string;
  prTitle: string;
  /** Id of the comment (or review / note); empty for lifecycle events. */
  commentId: string;
  commentType: 'issue_comment' | 'review_comment' | 'review' | 'lifecycle';
  authorUsername: string;
  /**
   * A human-readable name of the author for text people read (commit messages), when it differs
   * from `authorUsername`, which is an identity (Bitbucket Cloud: `{<account id>}`). Never compared.
   */
  authorName?: string;
  body: string;
  /** Inline comments only. */
  filePath?: string;
  line?: number;
  /**
   * The side of the diff `line` is numbered on, when the platform says: LEFT = the old (base) file,
   * e.g. a comment on a removed line; RIGHT = the new file. Absent: not reported (read as RIGHT).
   */
  side?: DiffSide;
  diffHunk?: string;
  /** GitLab discussion of the note; GitHub: id of the review comment a reply belongs to. */
  discussionId?: string;
  cloneUrl: string;
  deliveryId: string;
  eventType: EventType;
}

/** Where `Platform.locateComment` found a comment: its inline thread. */
export interface LocatedComment {
  /** The thread's first comment: what `postReply` answers in as `discussionId`. */
  discussionId: string;
  path: string;
  /** The thread's line on `side` (RIGHT = new file, LEFT = old file), when the platform says. */
  line?: number;
  side?: DiffSide;
  /** The diff around the line, when the platform keeps it. */
  diffHunk?: string;
}

/** A webhook request as received: headers lower-cased, the exact raw body bytes. */
export interface WebhookRequest {
  headers: Record<string, string | undefined>;
  rawBody: Buffer;
}

/** What a platform made of a verified webhook. */
export type WebhookParseResult =
  { kind: 'event'; comment: ReviewComment } | { kind: 'ignored'; reason: string };

/** A platform's webhook verification and parsing (only present when its webhook secret is set). */
export interface WebhookHandler {
  /** Checks the signature/token on the raw body, timing-safe. Never throws. */
  verify(request: WebhookRequest): boolean;
  /** Delivery id for de-duplication (`X-GitHub-Delivery`, `X-Gitlab-Event-UUID`), when present. */
  deliveryId(request: WebhookRequest): string | undefined;
  /**
   * Turns a verified, JSON-parsed body into a ReviewComment, or says why it is ignored (event kind
   * not handled, action not `created`, not a pull request, ...). Never throws on odd payloads.
   */
  parse(request: WebhookRequest, body: Record<string, unknown>): WebhookParseResult;
}
