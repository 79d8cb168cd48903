import { describe, expect, it } from 'vitest';
import { parseLearningCommand } from './commands.js';

describe('parseLearningCommand', () => {
  it('reads learn, remember and forget in any case', () => {
    expect(parseLearningCommand('learn we use tabs')).toEqual({ kind: 'learn', text: 'we use tabs' });
    expect(parseLearningCommand('  Remember: money is in cents\nalways')).toEqual({
      kind: 'learn',
      text: 'money is in cents\nalways',
    });
    expect(parseLearningCommand('FORGET 0a1B2c3d')).toEqual({ kind: 'forget', id: '0a1b2c3d' });
    expect(parseLearningCommand('forget `0a1b2c3d` please')).toEqual({ kind: 'forget', id: '0a1b2c3d' });
    expect(parseLearningCommand('learn')).toEqual({ kind: 'learn', text: '' });
  });

  it('leaves review requests alone', () => {
    expect(parseLearningCommand('')).toBeUndefined();
    expect(parseLearningCommand('learning about caches, please review')).toBeUndefined();
    expect(parseLearningCommand('learned-behaviour check')).toBeUndefined();
    expect(parseLearningCommand('please learn this')).toBeUndefined();
    expect(parseLearningCommand('forgetful code here?')).toBeUndefined();
  });
});
