import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two test files at once even on 2 cores (vitest's default is cores - 1): most tests wait on
    // child processes, git and HTTP, so the suite takes ~13 instead of ~18 minutes here.
    maxWorkers: 2,
  },
});
