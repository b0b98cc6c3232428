import { defineConfig } from 'vitest/config';
import ProjectOrderSequencer from './test/support/sequencer.ts';

// The global setups run in this process, before `test.env` applies.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
process.env.DDB_LOCAL_TELEMETRY = '0';

/** What every project shares (projects defined here inherit nothing from the root config). */
const common = {
  // Child processes, each running one file at a time (see `isolate` for what files share).
  pool: 'forks',
  testTimeout: 30_000,
  hookTimeout: 60_000,
} as const;

/** Starts the run's one DynamoDB Local (shared by every project that lists it). */
const DYNAMODB = 'test/support/dynamodb-setup.ts';

/** A project of the files under test/<name>/, with DynamoDB Local, each file in a fresh module graph. */
const withDynamo = (name: string) => ({
  test: { ...common, name, include: [`test/${name}/**/*.test.ts`], globalSetup: [DYNAMODB] },
});

/**
 * The files under test/<name>/ in two projects, both with DynamoDB Local. Most share their worker's
 * modules with the files the worker ran before (`isolate: false`): each local runtime has its own
 * container, so loading the handlers, simulators and SDKs once per worker instead of once per file
 * saves seconds a file. The `isolated` ones run in a fresh module graph each (`<name>-isolated`):
 * they set something process-wide before the code under test loads, or count process-wide hooks.
 */
const sharingModules = (name: string, isolated: readonly string[]) => {
  const files = isolated.map((file) => `test/${name}/${file}.test.ts`);
  return [
    {
      test: {
        ...withDynamo(name).test,
        exclude: files,
        isolate: false,
      },
    },
    { test: { ...withDynamo(name).test, name: `${name}-isolated`, include: files } },
  ];
};

export default defineConfig({
  test: {
    // The root project's setup runs once whichever projects run: the grant usage directory.
    globalSetup: ['test/support/grant-usage-setup.ts'],
    // Three files at a time on 2 cores, across every project: the e2e files wait on I/O (DynamoDB
    // Local, the simulators, their timers). Measured on one machine, the whole suite: 2 workers
    // 702 s with the CPU 64% busy, 3 workers 580 s at 80%, the same 2,809 tests passing.
    maxWorkers: 3,
    // Which project's files start first (the longest standalone files), and last (the unit files).
    sequence: { sequencer: ProjectOrderSequencer },
    reporters: ['default', './test/support/grant-reporter.ts', './test/support/summary-reporter.ts'],
    env: {
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      DDB_LOCAL_TELEMETRY: '0',
      POWERTOOLS_METRICS_DISABLED: 'true',
      POWERTOOLS_TRACE_ENABLED: 'false',
      POWERTOOLS_LOG_LEVEL: 'ERROR',
    },
    projects: [
      // Pure code, no DynamoDB Local and no runtime (`npm run test:unit`); Stryker runs this file too.
      'vitest.unit.config.ts',
      // The Powertools log level, read when the handlers load; the metrics cadence's time scale;
      // DynamoDB Local's process hooks, installed once a process.
      ...sharingModules('integration', ['metrics-collection', 'local-services']),
      ...sharingModules('e2e', ['request-log']),
      // Each file synthesizes the stacks (bundling stubbed): tens of seconds on a busy machine. They
      // share their worker's modules: aws-cdk-lib loads once a worker, not once a file (seconds
      // each); test/infra/setup.ts removes each file's scratch directories.
      {
        test: {
          ...withDynamo('infra').test,
          testTimeout: 120_000,
          isolate: false,
          setupFiles: ['test/infra/setup.ts'],
        },
      },
      withDynamo('openapi'),
    ],
  },
});
