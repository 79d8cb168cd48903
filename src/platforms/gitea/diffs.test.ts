import { describe, expect, it } from 'vitest';
import { splitUnifiedDiff, unquoteGitPath } from '../../diff/unified.js';
import { toPullRequestFiles } from './diffs.js';

const DIFF = [
  'diff --git a/src/a.ts b/src/a.ts',
  'index 1111111..2222222 100644',
  '--- a/src/a.ts',
  '+++ b/src/a.ts',
  '@@ -1,2 +1,2 @@',
  ' keep',
  '-old',
  '+new',
  'diff --git "a/docs/p\\303\\244th \\"q\\".md" "b/docs/p\\303\\244th \\"q\\".md"',
  'new file mode 100644',
  '--- /dev/null',
  '+++ "b/docs/p\\303\\244th \\"q\\".md"',
  '@@ -0,0 +1 @@',
  '+hello',
  'diff --git a/gone.txt b/gone.txt',
  'deleted file mode 100644',
  '--- a/gone.txt',
  '+++ /dev/null',
  '@@ -1 +0,0 @@',
  '-bye',
  'diff --git a/bin.dat b/bin.dat',
  'Binary files a/bin.dat and b/bin.dat differ',
  'diff --git a/x y.txt b/x y.txt',
  'old mode 100644',
  'new mode 100755',
  '',
].join('\n');

describe('Gitea diffs', () => {
  it('unquotes git C-style paths (octal UTF-8 bytes, escapes)', () => {
    expect(unquoteGitPath('"a/p\\303\\244th \\"q\\"\\t"')).toBe('a/päth "q"\t');
    expect(unquoteGitPath('plain path')).toBe('plain path');
  });

  it('splits a unified diff per file, keyed by the new path (old for deletions)', () => {
    const patches = splitUnifiedDiff(DIFF);
    expect([...patches.keys()]).toEqual(['src/a.ts', 'docs/päth "q".md', 'gone.txt']);
    expect(patches.get('src/a.ts')).toBe('@@ -1,2 +1,2 @@\n keep\n-old\n+new');
    expect(patches.get('gone.txt')).toBe('@@ -1 +0,0 @@\n-bye');
  });

  it("maps Gitea's file statuses ('changed' is a modification)", () => {
    const files = toPullRequestFiles(
      [
        { filename: 'src/a.ts', status: 'changed', additions: 1, deletions: 1 },
        { filename: 'gone.txt', status: 'deleted', additions: 0, deletions: 1 },
        { filename: 'n.ts', previous_filename: 'o.ts', status: 'renamed', additions: 0, deletions: 0 },
      ],
      splitUnifiedDiff(DIFF),
    );
    expect(files.map((f) => [f.path, f.status, f.previousPath, f.patch !== undefined])).toEqual([
      ['src/a.ts', 'modified', undefined, true],
      ['gone.txt', 'removed', undefined, true],
      ['n.ts', 'renamed', 'o.ts', false],
    ]);
  });
});
