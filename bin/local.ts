/**
 * `npm start`: the whole service on this machine (no Docker, no AWS account).
 *   PORT (default 3000), DATA_DIR (default .herald), `npm start -- --fresh` wipes DATA_DIR first.
 */
import { parseArgs } from 'node:util';
import { startLocalRuntime } from '../functions/adapters/local/runtime.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const { values } = parseArgs({
  options: {
    fresh: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  console.log('Usage: npm start [-- --fresh]\n  PORT (default 3000), DATA_DIR (default .herald)');
  process.exit(0);
}

const port = Number(process.env.PORT ?? 3000);
const dataDir = process.env.DATA_DIR ?? '.herald';

const main = async () => {
  const runtime = await startLocalRuntime({ dataDir, port, fresh: values.fresh });
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping Herald...`);
    await runtime.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

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
  console.log(`  ${seed.channels.length} channels, ${seed.tags.length} tags. Try:`);
  console.log(`  curl -s ${seed.baseUrl}/channels -H "x-api-key: ${seed.keys.live}"`);
  console.log(`Herald listening on http://localhost:${runtime.port}/v1`);
};

main().catch((error: unknown) => {
  console.error(`Herald could not start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
