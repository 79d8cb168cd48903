// Mutation testing of the code where a silent regression hurts most (`npm run test:mutation`; on
// demand, not part of `npm test`). Stryker copies the project into .stryker-tmp/, mutates the
// files below one change at a time and runs the unit tests of vitest.mutation.config.ts against
// each mutant; a mutant no test kills is a change the suite would let through. One module while
// iterating: `npx stryker run --mutate src/secrets.ts`. The JSON report goes to
// reports/mutation/mutation.json; the console prints the score of each file. After adding tests,
// run with `--force` once: incremental runs keep the old result of a static mutant (one in
// module-level code, which no single test covers), so a survivor a new test kills stays listed.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  vitest: { configFile: 'vitest.mutation.config.ts', related: false },
  coverageAnalysis: 'perTest',
  // The machine is shared: one test process at a time.
  concurrency: 1,
  timeoutMS: 30_000,
  mutate: [
    // Secret masking.
    'src/secrets.ts',
    // Pricing and the receipt's cost (buildReceipt, formatCost).
    'src/agent/pricing.ts',
    'src/review/receipt.ts:31-56',
    // Prompt building and fencing.
    'src/review/prompt.ts',
    // Memory markers: parsing and rendering, the neutraliser, the wire form.
    'src/review/memory/markers.ts',
    'src/diff/markdown.ts:36-74',
    'src/platforms/wire-markers.ts',
    // Mention extraction and authorisation.
    'src/jobs/mention.ts',
    // Webhook verification.
    'src/platforms/hub-signature-webhook.ts',
    'src/platforms/github/webhook.ts',
    'src/platforms/gitlab/webhook.ts',
    'src/platforms/gitea/webhook.ts',
    'src/platforms/azure-devops/webhook.ts',
    // Workspace paths.
    'src/workspace/workspace-path.ts',
    // The host-side git guard (workspaceGitProblem, assertWorkspaceGitSafe, WORKSPACE_GIT_CONFIG);
    // the module's removeWorkTree below it removes work trees and is no part of the guard.
    'src/workspace/workspace-guard.ts:28-173',
  ],
  ignorePatterns: ['dist', 'reports', 'bench', 'deploy', 'docs', '.stryker-tmp', 'test/e2e'],
  reporters: ['clear-text', 'progress', 'json'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 90, low: 80, break: null },
  tempDirName: '.stryker-tmp',
  // Re-runs test only the mutants whose code or tests changed since the recorded run.
  incremental: true,
  incrementalFile: 'reports/mutation/stryker-incremental.json',
  cleanTempDir: 'always',
};
