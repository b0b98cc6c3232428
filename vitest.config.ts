import { defineConfig } from 'vitest/config';

// The global setup (DynamoDB Local) runs in this process, before `test.env` applies.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
process.env.DDB_LOCAL_TELEMETRY = '0';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    // Each file in its own process: the local runtime sets process-wide environment variables.
    pool: 'forks',
    // Two files at a time on 2 cores: the e2e files wait on I/O; the suite stays within its budget.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/support/grant-reporter.ts', './test/support/summary-reporter.ts'],
    env: {
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      DDB_LOCAL_TELEMETRY: '0',
      POWERTOOLS_METRICS_DISABLED: 'true',
      POWERTOOLS_TRACE_ENABLED: 'false',
      POWERTOOLS_LOG_LEVEL: 'ERROR',
    },
  },
});
