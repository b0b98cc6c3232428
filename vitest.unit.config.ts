import { defineConfig } from 'vitest/config';

// The publishing engine's unit tests run on in-memory fakes: no DynamoDB Local, no global setup.
// Stryker's mutation runs use this configuration too (see stryker.config.json).
export default defineConfig({
  test: {
    include: ['test/unit/publishing/**/*.test.ts'],
    pool: 'threads',
    // The tests share no module state (each builds its own engine and fakes): one context is faster.
    isolate: false,
    testTimeout: 5_000,
    env: {
      POWERTOOLS_METRICS_DISABLED: 'true',
      POWERTOOLS_TRACE_ENABLED: 'false',
      POWERTOOLS_LOG_LEVEL: 'SILENT',
    },
  },
});
