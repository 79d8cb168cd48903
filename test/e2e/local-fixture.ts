/**
 * A developer's clone for `reviewbot review --local`: a branch with a commit, a staged new file, an
 * unstaged edit, a staged rename with an edit, an untracked file and ignored ones (a build output,
 * a `.env`, a dependency), while `main` moved on after the branch point (its change must not be
 * reviewed).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cloneWorkingCopy, commitToBranch, createBareRepo, runGit } from '../support/git-fixtures.js';

function numbered(prefix: string, count: number): string {
  return Array.from({ length: count }, (_, i) => `export const ${prefix}${i + 1} = ${i + 1};\n`).join('');
}

/** Text only the developer's ignored files hold: no tool of the agent may show it. */
export const CANARY = 'CANARY_db_password_do_not_read_31337';

/** Paths and hand-computed line numbers of the local scenario (RIGHT = working tree numbering). */
export const LOCAL = {
  committed: { path: 'src/committed.ts', line: 5 },
  staged: { path: 'src/staged.ts', startLine: 2, line: 3 },
  unstaged: { path: 'src/unstaged.ts', line: 8, removedLine: 3 },
  renamed: { from: 'src/old-name.ts', path: 'src/new-name.ts', line: 6 },
  untracked: { path: 'notes/todo.md', line: 2 },
  ignored: 'build/out.js',
  /** Ignored secrets and dependencies of the developer's tree, holding `CANARY`. */
  ignoredEnv: '.env',
  ignoredDependency: 'node_modules/left-pad/index.js',
  movedOnMain: 'src/main-only.ts',
  /** An unchanged line of a changed file (not on the diff). */
  offDiff: { path: 'src/committed.ts', line: 15 },
} as const;

/** The clone and its bare origin. */
export interface LocalRepo {
  root: string;
  dir: string;
}

/** Builds the scenario under a new temporary directory. */
export function createLocalRepo(): LocalRepo {
  const root = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-local-'));
  const bare = createBareRepo(path.join(root, 'remote'), 'acme/widgets');
  commitToBranch(bare, {
    branch: 'main',
    message: 'initial',
    changes: {
      write: {
        [LOCAL.committed.path]: numbered('c', 20),
        [LOCAL.unstaged.path]: numbered('u', 10),
        [LOCAL.renamed.from]: numbered('r', 10),
        '.gitignore': 'build/\n.env\nnode_modules/\n',
      },
    },
  });
  const dir = path.join(root, 'clone');
  const clone = cloneWorkingCopy(bare, dir); // origin/HEAD -> origin/main
  clone.checkout('feature');
  // 1. committed on the branch: line 5 changed.
  clone.commit('change c5', {
    write: { [LOCAL.committed.path]: numbered('c', 20).replace('c5 = 5;', 'c5 = 500;') },
  });
  // main moves on after the branch point; the merge base stays at "initial".
  commitToBranch(bare, {
    branch: 'main',
    message: 'main moves',
    changes: { write: { [LOCAL.movedOnMain]: 'export const onMain = true;\n' } },
  });
  runGit(dir, ['fetch', '--quiet', 'origin']);
  // 2. staged: a new file.
  writeFileSync(
    path.join(dir, LOCAL.staged.path),
    'export const s1 = 1;\nexport const s2 = 2;\nexport const s3 = 3;\n',
  );
  runGit(dir, ['add', LOCAL.staged.path]);
  // 3. staged rename with an edit of line 6.
  runGit(dir, ['mv', LOCAL.renamed.from, LOCAL.renamed.path]);
  writeFileSync(path.join(dir, LOCAL.renamed.path), numbered('r', 10).replace('r6 = 6;', 'r6 = 600;'));
  runGit(dir, ['add', LOCAL.renamed.path]);
  // 4. unstaged: line 3 removed, line 8 (after the removal) changed.
  const unstaged = numbered('u', 10)
    .split('\n')
    .filter((l) => !l.includes('u3 ='))
    .map((l) => (l.includes('u9 =') ? 'export const u9 = 900; // UNSTAGED' : l))
    .join('\n');
  writeFileSync(path.join(dir, LOCAL.unstaged.path), unstaged);
  // 5. untracked and ignored files.
  mkdirSync(path.join(dir, 'notes'));
  writeFileSync(path.join(dir, LOCAL.untracked.path), '# TODO\n- ship it\n');
  mkdirSync(path.join(dir, 'build'));
  writeFileSync(path.join(dir, LOCAL.ignored), 'ignored();\n');
  writeFileSync(path.join(dir, LOCAL.ignoredEnv), `DB_PASSWORD=${CANARY}\n`);
  mkdirSync(path.join(dir, path.dirname(LOCAL.ignoredDependency)), { recursive: true });
  writeFileSync(path.join(dir, LOCAL.ignoredDependency), `module.exports = '${CANARY}';\n`);
  return { root, dir };
}
