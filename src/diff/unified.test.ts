/** `splitUnifiedDiff` on git's own output and on Bitbucket Data Center's raw diff. */
import { describe, expect, it } from 'vitest';
import { splitUnifiedDiff } from './unified.js';

const HUNK = '@@ -1,2 +1,2 @@\n a\n-b\n+c';

describe('splitUnifiedDiff', () => {
  it("keys git's a/ b/ diff by the new path", () => {
    const diff = `diff --git a/src/x.ts b/src/x.ts\nindex 1..2 100644\n--- a/src/x.ts\n+++ b/src/x.ts\n${HUNK}\n`;
    expect([...splitUnifiedDiff(diff)]).toEqual([['src/x.ts', HUNK]]);
  });

  it("keys Bitbucket Data Center's src:// dst:// diff by the new path", () => {
    const diff = [
      'diff --git src://src/x.ts dst://src/x.ts',
      'index 1..2 100644',
      '--- src://src/x.ts',
      '+++ dst://src/x.ts',
      HUNK,
      'diff --git src://gone.md dst://gone.md',
      'deleted file mode 100644',
      '--- src://gone.md',
      '+++ /dev/null',
      '@@ -1 +0,0 @@',
      '-bye',
      '',
    ].join('\n');
    expect([...splitUnifiedDiff(diff)]).toEqual([
      ['src/x.ts', HUNK],
      ['gone.md', '@@ -1 +0,0 @@\n-bye'],
    ]);
  });
});
