/**
 * `npm start`: the whole service on this machine (no Docker, no AWS account).
 *   PORT (default 3000), DATA_DIR (default .herald), LOG_LEVEL (default info),
 *   `npm start -- --fresh` wipes DATA_DIR first.
 */
import { parseArgs } from 'node:util';
import { consoleLog, LOG_LEVELS, parseLogLevel } from '../functions/adapters/local/console-log.ts';
import { DataDirLockedError } from '../functions/adapters/local/data-dir-lock.ts';
import { watchParent } from '../functions/adapters/local/parent-watch.ts';
import { PortInUseError, startLocalRuntime } from '../functions/adapters/local/runtime.ts';
import { cadencePace } from '../functions/core/metrics/cadence.ts';
import { env } from '../functions/shared/env.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

/** cognito-local's usual port; a free one when it is taken. */
const COGNITO_PORT = 9229;

const USAGE = `Usage: npm start [-- --fresh]
  PORT       HTTP port on 127.0.0.1 and ::1 (default 3000)
  DATA_DIR   where data persists (default .herald); one running Herald per directory
  LOG_LEVEL  ${LOG_LEVELS.join(' | ')} (default info: start-up progress and one line per request)
  METRICS_TIME_SCALE  runs the metrics cadence this many times faster (default 1; 3600: an hour
             of the cadence lasts a second, a post's readings end about 11 minutes after it goes live)`;

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

const fail = (message: string): never => {
  console.error(`Herald could not start: ${message}`);
  process.exit(1);
};

const readConfig = () => {
  try {
    const { values } = parseArgs({
      options: {
        fresh: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
    const port = Number(process.env.PORT ?? 3000);
    if (!Number.isInteger(port) || port < 0 || port > 65_535) {
      throw new Error(`PORT must be a port number (0-65535), got ${JSON.stringify(process.env.PORT)}`);
    }
    return {
      fresh: values.fresh ?? false,
      help: values.help ?? false,
      port,
      dataDir: process.env.DATA_DIR || '.herald',
      // Read now, so a value that is not a positive number stops the start with the usage.
      metrics: { timeScale: env.metricsTimeScale, sweepSeconds: env.metricsSweepIntervalSeconds },
      log: consoleLog(parseLogLevel(process.env.LOG_LEVEL)),
    };
  } catch (error) {
    return fail(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
  }
};

const { fresh, help, port, dataDir, log, metrics } = readConfig();
if (help) {
  console.log(USAGE);
  process.exit(0);
}

// With the terminal or the parent gone, a write must not crash the process before it has stopped.
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);

/**
 * A signal this soon after the first is the same stop asked twice, not an impatient second one:
 * Ctrl-C signals npm's whole process group, and npm then forwards its own SIGINT to Herald.
 */
const ECHO_MS = 1_000;

const main = async () => {
  let stopping: Promise<void> | undefined;
  let firstSignalAt = 0;
  let stop: (() => Promise<void>) | undefined;
  /**
   * Every way out (Ctrl-C, SIGINT or SIGTERM to npm or to node, SIGHUP, the parent's death) drains
   * and stops every child, DynamoDB Local's java included. A second signal does not wait: the exit
   * hooks kill the children.
   */
  const shutdown = (reason: string) => {
    if (stopping) {
      if (performance.now() - firstSignalAt < ECHO_MS) return;
      console.log(`${reason} again: stopping now.`);
      process.exit(1);
    }
    firstSignalAt = performance.now();
    console.log(`\n${reason}: stopping Herald...`);
    stopping = (stop?.() ?? Promise.resolve()).then(
      () => {
        console.log('Herald stopped.');
        process.exit(0);
      },
      (error: unknown) => {
        console.error(
          `Herald did not stop cleanly: ${error instanceof Error ? error.message : String(error)}`,
        );
        process.exit(1);
      },
    );
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => shutdown(signal));
  watchParent((why) => shutdown(why.charAt(0).toUpperCase() + why.slice(1)));

  // A signal during start-up exits at once: the exit hooks stop java and free DATA_DIR.
  const runtime = await startLocalRuntime({ dataDir, port, fresh, log, cognitoPort: COGNITO_PORT });
  stop = runtime.stop;
  // Started now (a runtime in a test starts it on first need): the owner's sign-in is printed below.
  const since = performance.now();
  const signIn = await runtime.cognito();
  log.info(
    `  Cognito emulator (cognito-local) on ${signIn.endpoint}, user pool ${signIn.userPoolId} ` +
      `(${((performance.now() - since) / 1000).toFixed(1)} s)`,
  );

  const { seed } = runtime;
  console.log(
    runtime.seededNow
      ? `Seeded a demo account (${dataDir}/seed.json):`
      : `Demo account (${dataDir}/seed.json):`,
  );
  console.log(`  live key (write):        ${seed.keys.live}`);
  console.log(`  test key (sandbox):      ${seed.keys.test}`);
  console.log(`  read-only key:           ${seed.keys.read}`);
  console.log(`  second workspace key:    ${seed.keys.otherWorkspace}`);
  // What the demo workspace holds now (channels connected or removed since the seed included).
  const { channels, tags } = runtime.container.deps;
  const [channelCount, tagCount] = await runtime.container.run(() =>
    Promise.all([
      channels.listChannels(seed.workspaces.main).then((list) => list.length),
      tags.listTags(seed.workspaces.main).then((list) => list.length),
    ]),
  );
  console.log(`  ${plural(channelCount, 'channel')}, ${plural(tagCount, 'tag')} in the demo workspace. Try:`);
  console.log(`  curl -s ${seed.baseUrl}/channels -H "x-api-key: ${seed.keys.live}"`);
  console.log(`Dashboard: http://localhost:${runtime.port}/dashboard/`);
  console.log(`  owner email:             ${signIn.owner.email}`);
  console.log(`  owner password:          ${signIn.owner.password}`);
  // A fast cadence says so: readings then come in seconds instead of hours, as they never do on AWS.
  const pace = cadencePace(metrics);
  if (pace) console.log(`Metrics ${pace}; due readings are handed out every ${metrics.sweepSeconds} s.`);
  console.log(`Herald listening on http://localhost:${runtime.port}/v1`);
};

main().catch((error: unknown) => {
  // The expected refusals say what to do in one line; anything else may need its stack.
  if (error instanceof DataDirLockedError || error instanceof PortInUseError) fail(error.message);
  if (log.level === 'debug' && error instanceof Error && error.stack) console.error(error.stack);
  fail(error instanceof Error ? error.message : String(error));
});
