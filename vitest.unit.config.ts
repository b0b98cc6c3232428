import { defineProject } from 'vitest/config';

/**
 * The unit tests: pure code, no DynamoDB Local and no runtime. The one definition of them:
 * vitest.config.ts lists this file as its `unit` project (`npm run test:unit`), and Stryker's
 * mutation runs use it alone (stryker.config.json; its runner narrows the run to the tests that
 * import the mutated files).
 */
export default defineProject({
  test: {
    name: 'unit',
    include: ['test/unit/**/*.test.ts'],
    pool: 'forks',
    // The files share their worker's modules (no runtime, no process-wide setting left behind): half the CPU.
    isolate: false,
    // Under Stryker (its workers set STRYKER_MUTATOR_WORKER), a mutant that leaves a test waiting
    // forever (a completion never written) fails it in 5 s rather than running into Stryker's timeout.
    testTimeout: process.env.STRYKER_MUTATOR_WORKER === undefined ? 30_000 : 5_000,
    hookTimeout: 60_000,
    // As vitest.config.ts sets for every project (this file runs alone under Stryker).
    env: {
      POWERTOOLS_METRICS_DISABLED: 'true',
      POWERTOOLS_TRACE_ENABLED: 'false',
      POWERTOOLS_LOG_LEVEL: 'ERROR',
    },
  },
});
