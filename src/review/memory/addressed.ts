/**
 * Addressed findings (CONTRACT §13): an open thread of the bot whose anchored code the reviewed
 * changes modified or deleted is resolved, and the review body lists it. Only the bot's own threads
 * are considered (their first comment is the bot's and carries a finding marker); only RIGHT-side
 * findings (code of the head) can be addressed; only files the review covered are looked at.
 */
import { lstat, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../../logger.js';
import type { Platform } from '../../platforms/types.js';
import { codeSpan } from '../../diff/markdown.js';
import { containsFingerprint } from './fingerprint.js';
import type { EarlierFinding } from './state.js';

/** Heading of the body section listing resolved threads (§13). */
export const ADDRESSED_HEADING = 'Addressed since the last review';

/**
 * Text of `relative` in the checkout `dir`: null when it does not exist (or is not a regular file),
 * undefined when the path leaves the checkout (never read, never counted as addressed).
 */
async function headText(dir: string, relative: string): Promise<string | null | undefined> {
  const full = path.resolve(dir, relative);
  if (!full.startsWith(`${path.resolve(dir)}${path.sep}`)) return undefined;
  try {
    const stat = await lstat(full);
    if (!stat.isFile()) return null;
    return await readFile(full, 'utf8');
  } catch {
    return null;
  }
}

/**
 * The open earlier findings, in files of `reviewedPaths`, whose code no longer exists in the head
 * checkout `workspaceDir` (modified or deleted).
 */
export async function findAddressed(
  earlier: EarlierFinding[],
  reviewedPaths: Set<string>,
  workspaceDir: string,
): Promise<EarlierFinding[]> {
  const out: EarlierFinding[] = [];
  for (const finding of earlier) {
    const { thread, marker } = finding;
    if (thread.resolved || marker.side !== 'RIGHT' || !reviewedPaths.has(thread.path)) continue;
    const text = await headText(workspaceDir, thread.path);
    if (text === undefined) continue;
    if (text === null || !containsFingerprint(thread.path, text, marker.fp, marker.n)) out.push(finding);
  }
  return out;
}

/**
 * Resolves each addressed thread; returns those resolved. A failure is logged and that thread is
 * left out (it stays open; the review still posts).
 */
export async function resolveAddressed(
  platform: Platform,
  repoFullName: string,
  prNumber: number,
  addressed: EarlierFinding[],
  logger: Logger,
): Promise<EarlierFinding[]> {
  const resolve = platform.resolveThread?.bind(platform);
  if (!resolve) return [];
  const done: EarlierFinding[] = [];
  for (const finding of addressed) {
    try {
      await resolve(repoFullName, prNumber, finding.thread.id);
      done.push(finding);
    } catch (error) {
      logger.warn(
        { err: error instanceof Error ? error.message : String(error), thread: finding.thread.id },
        'could not resolve an addressed thread',
      );
    }
  }
  return done;
}

/** First line of a finding's comment, without markers or suggestion blocks, for the list. */
function gist(body: string): string {
  const text = body.replace(/<!--[\s\S]*?-->/g, '').split(/\n```/)[0] ?? '';
  const line = text.trim().split('\n')[0]?.trim() ?? '';
  return line.length > 140 ? `${line.slice(0, 139)}…` : line;
}

/** What an addressed thread's list item adds when the platform refused to resolve it. */
export const UNRESOLVED_NOTE = '(could not be resolved: the thread stays open)';

/**
 * The "Addressed since the last review" body section, or ''. Threads of `unresolved` (resolution
 * failed, e.g. the bot's account lacks the role) are marked as still open, and a closing line says
 * why they may be.
 */
export function addressedSection(
  addressed: EarlierFinding[],
  unresolved: ReadonlySet<EarlierFinding> = new Set(),
): string {
  if (addressed.length === 0) return '';
  const items = addressed.map((finding) => {
    const { thread } = finding;
    const where = thread.line ? `${thread.path}:${thread.line}` : thread.path;
    const text = gist(thread.body);
    const open = unresolved.has(finding) ? ` ${UNRESOLVED_NOTE}` : '';
    return `- ${codeSpan(where)}${text ? `: ${text}` : ''}${open}`;
  });
  const why =
    unresolved.size === 0
      ? ''
      : `\n\n${unresolved.size === 1 ? 'One thread' : `${unresolved.size} threads`} could not be ` +
        "resolved: the bot's account may lack the permission to resolve threads on this repository.";
  return `### ${ADDRESSED_HEADING}\n\n${items.join('\n')}${why}`;
}
