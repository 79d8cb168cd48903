/**
 * Learnings (CONTRACT §20): notes about one repository that shape every later review of it, taught
 * by an allowed user's `learn` command or thumbs-down on a finding. Records and the store interface;
 * the Redis store (`redis-store.ts`) and the file store (`file-store.ts`) implement it.
 */
import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';

/** Where a learning came from: a `learn`/`remember` command, or a thumbs-down on a bot finding. */
export type LearningSource = 'command' | 'dismissal';

/** One learning (CONTRACT §20 record; `fingerprint` is this package's addition for dismissals). */
export interface Learning {
  /** Short id users type in `forget <id>`: 8 lower-case hex characters. */
  id: string;
  /**
   * What the team wants the reviewer to know. A dismissal's text is reviewbot's own
   * (`dismissalText`: its path and fingerprint), never the dismissed finding's words, which the
   * model wrote, steered by the pull request.
   */
  text: string;
  /** Glob of the files it applies to (picomatch syntax); absent = the whole repository. */
  path?: string;
  /** Username of the allowed user who taught it. */
  author: string;
  /** ISO 8601 time it was stored. */
  createdAt: string;
  source: LearningSource;
  /**
   * The §13 code fingerprint of the finding it is about (with `path`, its identity): a dismissal's,
   * or that of the finding in whose thread a `learn` was written (which dismisses it in `stats`).
   */
  fingerprint?: string;
}

/** Limits per repository (CONTRACT §20 "a cap on count and length per repository"). */
export const LEARNING_LIMITS = {
  /** Learnings one repository may hold; a `learn` beyond it is refused with a reply. */
  maxPerRepository: 200,
  /** Characters of one learning's text; longer text is refused with a reply. */
  maxTextChars: 1000,
  /** Characters of a learning's path glob. */
  maxPathChars: 300,
} as const;

/** What `add` did. */
export type AddLearningResult =
  | { kind: 'added'; learning: Learning }
  /** Same id already stored (a dismissal of a finding already dismissed): nothing changed. */
  | { kind: 'exists'; learning: Learning }
  /** The repository holds `limit` learnings already: nothing stored. */
  | { kind: 'full'; limit: number };

/** A new learning before the store gives it an id (dismissals bring a stable one) and a date. */
export type NewLearning = Omit<Learning, 'id' | 'createdAt'> & { id?: string; createdAt?: string };

/** Which repository a set of learnings belongs to: platform name plus full repository name. */
export interface LearningsScope {
  platform: string;
  repo: string;
}

/**
 * Storage of learnings, one set per repository. Implementations survive restarts and are safe under
 * concurrent jobs (also across processes). Every method rejects with the backend's error (Redis
 * unreachable, file system error); a stored entry that does not parse is skipped, not fatal.
 */
export interface LearningsStore {
  /** Every learning of `scope`, newest first. */
  list(scope: LearningsScope): Promise<Learning[]>;
  /** Stores `learning` unless its id exists or the repository is full (see AddLearningResult). */
  add(scope: LearningsScope, learning: NewLearning): Promise<AddLearningResult>;
  /** Removes learning `id`; resolves false when there was none. */
  remove(scope: LearningsScope, id: string): Promise<boolean>;
  /** Releases connections the store opened itself (not those passed in). */
  close(): Promise<void>;
}

/** Parser of one stored learning (JSON), tolerant of fields added later. */
export const learningSchema = z.object({
  id: z.string().regex(/^[0-9a-f]{8}$/),
  text: z.string(),
  path: z.string().optional(),
  author: z.string(),
  createdAt: z.string(),
  source: z.enum(['command', 'dismissal']),
  fingerprint: z.string().optional(),
});

/** A fresh random learning id (8 hex characters). */
export function newLearningId(): string {
  return randomBytes(4).toString('hex');
}

/**
 * The stable id of a dismissal of the finding at `path` with code `fingerprint`: the same finding
 * dismissed twice (or on two pull requests) is stored once.
 */
export function dismissalId(path: string, fingerprint: string): string {
  return createHash('sha256').update(`${path}\0${fingerprint}`).digest('hex').slice(0, 8);
}

/** A finding fingerprint as the §13 marker carries it: 16 lower-case hex digits. */
const FINGERPRINT = /^[0-9a-f]{16}$/;

/**
 * The text of a dismissal, built by reviewbot from the finding's identity only:
 * `Dismissed finding at <path> (fingerprint <fp>)`. Whitespace and control characters in `path`
 * read as one space (a file name cannot start a line of its own in a prompt); a fingerprint that
 * is not 16 hex digits, or a missing path, reads as `unknown`.
 */
export function dismissalText(path: string | undefined, fingerprint: string | undefined): string {
  // eslint-disable-next-line no-control-regex
  const where = path?.replace(/[\s\x00-\x1f\x7f\u2028\u2029]+/g, ' ').trim() || 'an unknown path';
  const fp = fingerprint !== undefined && FINGERPRINT.test(fingerprint) ? fingerprint : 'unknown';
  return `Dismissed finding at ${where} (fingerprint ${fp})`;
}

/** True when `id` has the form of a learning id (what `forget` accepts). */
export function isLearningId(id: string): boolean {
  return /^[0-9a-f]{8}$/.test(id);
}

/**
 * Completes `learning` with an id and a date; a dismissal's text becomes
 * `dismissalText(path, fingerprint)`, whatever text it came with.
 */
export function completeLearning(learning: NewLearning, now: () => Date = () => new Date()): Learning {
  return {
    ...learning,
    ...(learning.source === 'dismissal' ? { text: dismissalText(learning.path, learning.fingerprint) } : {}),
    id: learning.id ?? newLearningId(),
    createdAt: learning.createdAt ?? now().toISOString(),
  };
}

/** Sorts newest first (by `createdAt`, then id for a stable order). */
export function newestFirst(learnings: Learning[]): Learning[] {
  return [...learnings].sort((a, b) =>
    a.createdAt === b.createdAt ? a.id.localeCompare(b.id) : a.createdAt < b.createdAt ? 1 : -1,
  );
}

/**
 * Parses one stored JSON value; undefined when it is not a learning. A dismissal's stored text is
 * replaced by `dismissalText(path, fingerprint)`: dismissals stored by earlier versions hold the
 * dismissed finding's own words (model output steered by the pull request), which must never
 * reach a later review's prompt, the CLI or a rewrite of the store.
 */
export function parseLearning(text: string): Learning | undefined {
  try {
    const parsed = learningSchema.safeParse(JSON.parse(text));
    if (!parsed.success) return undefined;
    const { path, fingerprint, ...rest } = parsed.data;
    return {
      ...rest,
      ...(rest.source === 'dismissal' ? { text: dismissalText(path, fingerprint) } : {}),
      ...(path !== undefined ? { path } : {}),
      ...(fingerprint !== undefined ? { fingerprint } : {}),
    };
  } catch {
    return undefined;
  }
}
