import { describe, expect, it } from 'vitest';
import { makeComment, makePayload } from '../../jobs/records.test-helper.js';
import { isValidLabelValue, jobGenerateName, jobIdSelector, jobLabels, repoSlug } from './labels.js';

describe('repoSlug', () => {
  it.each([
    ['acme/widgets', 'acme-widgets'],
    ['Acme/Widgets', 'acme-widgets'],
    ['octo.org/my_repo.js', 'octo-org-my-repo-js'],
    ['group/sub/project', 'group-sub-project'],
    ['-lead/trail-', 'lead-trail'],
    ['__/x__', 'x'],
    ['ünï/cødé', 'n--c-d'],
    [`o/${'a'.repeat(80)}`, `o-${'a'.repeat(61)}`],
    // The cut lands on a dash: trailing dashes go, so the value stays a valid label.
    [`${'a'.repeat(62)}/b`, 'a'.repeat(62)],
  ])('%s → %s', (fullName, slug) => {
    expect(repoSlug(fullName)).toBe(slug);
    expect(isValidLabelValue(repoSlug(fullName))).toBe(true);
  });
});

describe('jobGenerateName', () => {
  it.each([
    ['acme/widgets', 7, 'reviewbot-acme-widgets-7-'],
    ['Big.Org/Some_Repo', 1234, 'reviewbot-big-org-some-repo-1234-'],
    [`acme/${'w'.repeat(70)}`, 99, `reviewbot-acme-${'w'.repeat(43)}`],
  ])('%s#%i → %s', (fullName, pr, name) => {
    const generated = jobGenerateName(fullName, pr);
    expect(generated).toBe(name);
    expect(generated.length).toBeLessThanOrEqual(58);
  });
});

describe('isValidLabelValue', () => {
  it.each([
    ['', true],
    ['a', true],
    ['a-b_c.d', true],
    ['-a', false],
    ['a-', false],
    ['a/b', false],
    ['a'.repeat(63), true],
    ['a'.repeat(64), false],
  ])('%j → %s', (value, valid) => {
    expect(isValidLabelValue(value)).toBe(valid);
  });
});

describe('jobLabels', () => {
  it('labels platform, repo slug, pull request, job id and bot type', () => {
    const payload = makePayload(
      'worker',
      'do it',
      makeComment({ repoFullName: 'Acme/Widgets', prNumber: 42 }),
    );
    expect(jobLabels(payload)).toEqual({
      'app.kubernetes.io/name': 'reviewbot',
      'app.kubernetes.io/component': 'job',
      'reviewbot/platform': 'github',
      'reviewbot/repo': 'acme-widgets',
      'reviewbot/pr-number': '42',
      'reviewbot/job-id': payload.jobId,
      'reviewbot/bot-type': 'worker',
    });
    expect(jobIdSelector(payload.jobId)).toBe(`reviewbot/job-id=${payload.jobId}`);
  });

  it.each(['', 'not a label', 'x'.repeat(64)])('refuses job id %j', (jobId) => {
    const payload = { ...makePayload('reviewer', ''), jobId };
    expect(() => jobLabels(payload)).toThrow(/label value/);
  });
});
