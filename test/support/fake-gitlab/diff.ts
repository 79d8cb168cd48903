/**
 * The fake's git side of merge requests, as GitLab does it: the source branch is fetched into the
 * target project's `refs/merge-requests/<iid>/head`; each new head makes a diff version with
 * `head_sha`, `start_sha` (target branch tip) and `base_sha` (their merge base), and the version's
 * files are `git diff start...head` in GitLab's `diffs` shape (`diff` = the hunks with a final
 * newline; `Binary files a/x and b/x differ` for binary files).
 *
 * Each file's lines are numbered here with GitLab's diff-parser counters, independently of the
 * platform code under test: both counters start at the hunk header's numbers and advance per line
 * (an added line keeps the next old number, a removed line the next new number).
 */
import { computeDiffFiles, gitOutput } from '../fake-github/diff.js';
import type {
  DiffFileRecord,
  DiffLineRecord,
  FakeState,
  MergeRequestRecord,
  VersionRecord,
} from './state.js';

const HUNK = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/;

/** Numbers the lines of a GitLab `diff` (hunks only). */
export function numberLines(diff: string): DiffLineRecord[] {
  const out: DiffLineRecord[] = [];
  let oldPos = 0;
  let newPos = 0;
  let inHunk = false;
  for (const text of diff.split('\n')) {
    const header = HUNK.exec(text);
    if (header) {
      oldPos = Number(header[1]);
      newPos = Number(header[2]);
      inHunk = true;
    } else if (!inHunk || text === '' || text.startsWith('\\')) {
      continue;
    } else if (text.startsWith('+')) {
      out.push({ kind: 'add', oldPos, newPos });
      newPos++;
    } else if (text.startsWith('-')) {
      out.push({ kind: 'del', oldPos, newPos });
      oldPos++;
    } else {
      out.push({ kind: 'context', oldPos, newPos });
      oldPos++;
      newPos++;
    }
  }
  return out;
}

async function revParse(repoPath: string, rev: string): Promise<string> {
  return (await gitOutput(repoPath, ['rev-parse', '--verify', '--quiet', `${rev}^{commit}`])).trim();
}

/** Updates `refs/merge-requests/<iid>/head` from the source branch (when it still exists); returns its SHA. */
async function syncHeadRef(mr: MergeRequestRecord): Promise<string> {
  const target = mr.project.bareRepoPath;
  const ref = `refs/merge-requests/${mr.iid}/head`;
  try {
    if (mr.sourceProject !== mr.project) {
      await gitOutput(target, [
        'fetch',
        '--quiet',
        '--no-tags',
        mr.sourceProject.bareRepoPath,
        `+refs/heads/${mr.sourceBranch}:${ref}`,
      ]);
    } else {
      await gitOutput(target, ['update-ref', ref, await revParse(target, `refs/heads/${mr.sourceBranch}`)]);
    }
  } catch (error) {
    // A deleted source branch keeps the merge request at its last head, as on GitLab.
    if (mr.versions.length === 0) throw error;
  }
  return revParse(target, ref);
}

/** GitLab `diffs` entries of `startSha...headSha` in the merge request's project (also used by compare). */
export async function diffFiles(
  mr: Pick<MergeRequestRecord, 'project' | 'tooLarge'>,
  startSha: string,
  headSha: string,
): Promise<DiffFileRecord[]> {
  const files = await computeDiffFiles(mr.project.bareRepoPath, startSha, headSha);
  return files.map((f) => {
    const oldPath = f.previousFilename ?? f.filename;
    const withheld = mr.tooLarge.has(f.filename);
    let diff = '';
    if (withheld) diff = '';
    else if (f.binary) {
      diff = `Binary files ${f.status === 'added' ? '/dev/null' : `a/${oldPath}`} and ${
        f.status === 'removed' ? '/dev/null' : `b/${f.filename}`
      } differ\n`;
    } else if (f.patch !== undefined) diff = `${f.patch}\n`;
    return {
      old_path: oldPath,
      new_path: f.filename,
      a_mode: f.status === 'added' ? '0' : '100644',
      b_mode: f.status === 'removed' ? '0' : '100644',
      new_file: f.status === 'added',
      renamed_file: f.status === 'renamed',
      deleted_file: f.status === 'removed',
      generated_file: false,
      too_large: withheld,
      collapsed: false,
      diff,
      lines: diff.startsWith('@@') ? numberLines(diff) : [],
    };
  });
}

/**
 * Brings the merge request up to date with its source branch: a new diff version when the head
 * moved (or none exists yet). Returns the current version. Throws when the branches do not exist.
 */
export async function currentVersion(state: FakeState, mr: MergeRequestRecord): Promise<VersionRecord> {
  const headSha = await syncHeadRef(mr);
  const last = mr.versions.at(-1);
  if (last && last.headSha === headSha) return last;
  const startSha = await revParse(mr.project.bareRepoPath, `refs/heads/${mr.targetBranch}`);
  const baseSha = (await gitOutput(mr.project.bareRepoPath, ['merge-base', startSha, headSha])).trim();
  const version: VersionRecord = {
    id: state.nextId('version'),
    headSha,
    baseSha,
    startSha,
    createdAt: state.now(),
    files: await diffFiles(mr, startSha, headSha),
  };
  mr.versions.push(version);
  return version;
}
