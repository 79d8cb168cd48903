import { describe, expect, it } from 'vitest';
import { parseOverrideCommand } from './override-job.js';
import { parseLearningCommand } from '../learnings/commands.js';

describe('parseOverrideCommand (§21)', () => {
  it.each([
    ['override Hotfix, approved', 'Hotfix, approved'],
    ['Override: reviewed by hand ', 'reviewed by hand'],
    ['OVERRIDE\n  the  release\nmanager said so', 'the release manager said so'],
    ['override', ''],
  ])('%j → %j', (prompt, reason) => {
    expect(parseOverrideCommand(prompt)).toEqual({ kind: 'override', reason });
    expect(parseLearningCommand(prompt)).toBeUndefined();
  });

  it.each(['overrides are bad', 'please override this', 'override-all x', 'review the override logic'])(
    '%j is a review request',
    (prompt) => {
      expect(parseOverrideCommand(prompt)).toBeUndefined();
    },
  );
});
