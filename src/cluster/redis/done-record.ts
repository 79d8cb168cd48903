/**
 * The completion record and message of a cluster Job (CONTRACT §9): `{"jobId","status","finishedAt"}`,
 * stored at `reviewbot:done:<jobId>` (TTL 1 h) and published on channel `reviewbot:done`.
 */
import { z } from 'zod';

/** Lifetime of a `reviewbot:done:<jobId>` record, seconds (CONTRACT §9: 1 h). */
export const DONE_TTL_SECONDS = 3600;

/** How a job ended, as signalled. */
export type DoneStatus = 'succeeded' | 'failed';

/** The record and message of CONTRACT §9. */
export interface DoneMessage {
  jobId: string;
  status: DoneStatus;
  /** ISO 8601. */
  finishedAt: string;
}

const doneMessage = z.object({
  jobId: z.string().min(1),
  status: z.enum(['succeeded', 'failed']),
  finishedAt: z.string(),
});

/** Parses a completion record or message; undefined when it is not one (never throws). */
export function parseDoneMessage(text: string | null | undefined): DoneMessage | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    const parsed = doneMessage.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
