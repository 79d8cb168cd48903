import { describe, expect, it } from 'vitest';
import { onceUntilRejected } from './once-until-rejected.js';

describe('onceUntilRejected', () => {
  it('shares one pending or fulfilled result, and runs again after a rejection', async () => {
    let calls = 0;
    const get = onceUntilRejected(() => {
      calls += 1;
      if (calls === 1) throw new Error('first attempt fails');
      return Promise.resolve(calls);
    });
    const [a, b] = [get(), get()];
    expect(a).toBe(b);
    await expect(a).rejects.toThrow('first attempt fails');
    expect(await Promise.all([get(), get()])).toEqual([2, 2]);
    expect(await get()).toBe(2);
    expect(calls).toBe(2);
  });
});
