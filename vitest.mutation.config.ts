/**
 * The unit tests Stryker runs (`npm run test:mutation`, `stryker.config.mjs`): those of the modules
 * it mutates, and no end-to-end test (they spawn the built product, which Stryker's sandbox
 * copy does not have). Each mutant runs every test that covers it (`related: false`), not only the
 * files that import the mutated module.
 */
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      // Secret masking.
      'src/secrets.test.ts',
      // Pricing and the receipt's cost.
      'src/agent/pricing.test.ts',
      'src/review/receipt.test.ts',
      'src/review/receipt-cost.test.ts',
      // Prompt building and fencing.
      'src/review/prompt.test.ts',
      // Memory markers.
      'src/review/memory/markers.test.ts',
      'src/review/memory/markers-probe.test.ts',
      'src/review/memory/marker-position.test.ts',
      'src/review/memory/forgery.test.ts',
      'src/platforms/wire-markers.test.ts',
      'src/diff/markdown.test.ts',
      // Mention extraction and authorisation.
      'src/jobs/mention.test.ts',
      // Webhook verification.
      'src/platforms/hub-signature-webhook.test.ts',
      'src/platforms/github/webhook-verify.test.ts',
      'src/platforms/github/webhook-parse.test.ts',
      'src/platforms/gitlab/webhook.test.ts',
      'src/platforms/gitea/webhook.test.ts',
      'src/platforms/azure-devops/webhook.test.ts',
      'src/platforms/bitbucket-cloud/webhook.test.ts',
      'src/platforms/bitbucket-server/webhook.test.ts',
      // Workspace paths.
      'src/workspace/workspace-path.test.ts',
      // The host-side git guard.
      'src/workspace/workspace-guard-checks.test.ts',
      'src/workspace/workspace-guard.test.ts',
    ],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 1,
  },
});
