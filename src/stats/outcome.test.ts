import { describe, expect, it } from 'vitest';
import { findingOutcome, type ThreadFacts } from './outcome.js';

const BOT = new Set(['reviewbot']);
const open: ThreadFacts = { resolved: false, outdated: false, dismissed: false, prState: 'open' };

describe('findingOutcome', () => {
  it.each<[string, Partial<ThreadFacts>, string]>([
    ['an open thread of an open pull request', {}, 'open'],
    ['an open thread of a merged pull request', { prState: 'merged' }, 'open-at-merge'],
    ['an open thread of a closed pull request', { prState: 'closed' }, 'open-at-merge'],
    ['a thread the bot resolved', { resolved: true, resolvedBy: 'ReviewBot' }, 'addressed'],
    ['a thread a person resolved', { resolved: true, resolvedBy: 'alice', outdated: true }, 'resolved'],
    [
      'a resolved thread whose code changed, resolver unknown',
      { resolved: true, outdated: true },
      'addressed',
    ],
    ['a resolved thread whose code did not change, resolver unknown', { resolved: true }, 'resolved'],
    [
      'a thread resolved as fixed, resolver unknown (Azure DevOps)',
      { resolved: true, resolvedAsFixed: true },
      'addressed',
    ],
    [
      "a thread closed as won't fix, resolver unknown",
      { resolved: true, resolvedAsFixed: false, outdated: true },
      'resolved',
    ],
    [
      'a dismissed finding, even resolved',
      { dismissed: true, resolved: true, resolvedBy: 'reviewbot' },
      'dismissed',
    ],
  ])('%s', (_what, facts, outcome) => {
    expect(findingOutcome({ ...open, ...facts }, BOT)).toBe(outcome);
  });
});
