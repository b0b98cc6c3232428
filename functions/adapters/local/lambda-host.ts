/**
 * Runs one bundled Lambda function as Lambda does, for the deploy rehearsal: each instance is a
 * worker thread of its own (its own module graph, its own `process.env` holding exactly the
 * template's environment and the function's credentials), loaded cold on first use and kept warm,
 * one invocation at a time per instance, a new instance when all are busy, and killed when an
 * invocation outlives the function's timeout.
 */
import { Worker } from 'node:worker_threads';

export interface LambdaHostOptions {
  /** The function's name (its context's functionName). */
  name: string;
  /** The handler's file in the asset folder and its export. */
  file: string;
  exportName: string;
  /** The whole environment of an instance. */
  environment: Record<string, string>;
  timeoutSeconds: number;
  memoryMb: number;
  /** Most instances at once (Lambda's concurrency for it). */
  maxInstances?: number;
  /** Each line an instance prints (its logs). */
  onLog?: (line: string) => void;
}

/** An invocation that failed inside the function (what Lambda reports as a function error). */
export class FunctionError extends Error {
  constructor(
    readonly functionName: string,
    readonly errorType: string,
    message: string,
  ) {
    super(`${functionName}: ${errorType}: ${message}`);
    this.name = 'FunctionError';
  }
}

// The instance's bootstrap, run in the worker thread (plain Node, no loader): imports the handler
// file, then answers each message with the handler's result or its error.
const BOOTSTRAP = `
const { parentPort, workerData } = require('node:worker_threads');
const { pathToFileURL } = require('node:url');
const { randomUUID } = require('node:crypto');
const loaded = import(pathToFileURL(workerData.file).href).then((module) => {
  const handler = module[workerData.exportName];
  if (typeof handler !== 'function') {
    const error = new Error(workerData.file + ' does not export ' + workerData.exportName);
    error.name = 'Runtime.HandlerNotFound';
    throw error;
  }
  return handler;
}, (error) => {
  const wrapped = new Error(String(error && error.stack || error));
  wrapped.name = 'Runtime.ImportModuleError';
  throw wrapped;
});
parentPort.on('message', async ({ id, event, requestId, timeoutMs }) => {
  try {
    const handler = await loaded;
    // The timeout counts from here: Lambda's init phase (the import) has a limit of its own.
    const deadline = Date.now() + timeoutMs;
    parentPort.postMessage({ id, started: true });
    const name = workerData.name;
    const context = {
      callbackWaitsForEmptyEventLoop: true,
      functionName: name,
      functionVersion: '$LATEST',
      invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:' + name,
      memoryLimitInMB: String(workerData.memoryMb),
      awsRequestId: requestId || randomUUID(),
      logGroupName: '/aws/lambda/' + name,
      logStreamName: 'rehearsal/[$LATEST]' + randomUUID().replaceAll('-', ''),
      getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
      done: () => undefined, fail: () => undefined, succeed: () => undefined,
    };
    const result = await handler(event, context);
    parentPort.postMessage({ id, result });
  } catch (error) {
    parentPort.postMessage({ id, error: { type: (error && error.name) || 'Error', message: String(error && error.message || error) } });
  }
});
`;

interface Instance {
  worker: Worker;
  busy: boolean;
  dead: boolean;
}

interface Pending {
  started: () => void;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

let nextId = 0;

/** A pool of warm instances of one function. */
export class LambdaHost {
  readonly #options: LambdaHostOptions;
  readonly #instances: Instance[] = [];
  readonly #waiting: (() => void)[] = [];
  readonly #pending = new Map<number, Pending>();
  #stopped = false;
  /** Cold starts so far. */
  coldStarts = 0;
  invocations = 0;

  constructor(options: LambdaHostOptions) {
    this.#options = options;
  }

  #spawn(): Instance {
    const { file, exportName, name, memoryMb, environment } = this.#options;
    const worker = new Worker(BOOTSTRAP, {
      eval: true,
      workerData: { file, exportName, name, memoryMb },
      env: environment,
      // Plain Node, as Lambda's: no loader of the parent's command line.
      execArgv: [],
      stdout: true,
      stderr: true,
      resourceLimits: { maxOldGenerationSizeMb: memoryMb },
    });
    const instance: Instance = { worker, busy: false, dead: false };
    const log = this.#options.onLog;
    for (const stream of [worker.stdout, worker.stderr]) {
      let rest = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => {
        const lines = (rest + chunk).split('\n');
        rest = lines.pop() ?? '';
        for (const line of lines) log?.(line);
      });
    }
    worker.on(
      'message',
      (message: {
        id: number;
        started?: boolean;
        result?: unknown;
        error?: { type: string; message: string };
      }) => {
        const pending = this.#pending.get(message.id);
        if (!pending) return;
        if (message.started) {
          pending.started();
          return;
        }
        this.#pending.delete(message.id);
        if (message.error) pending.reject(new FunctionError(name, message.error.type, message.error.message));
        else pending.resolve(message.result);
      },
    );
    worker.on('error', (error) => log?.(`${name}: instance crashed: ${String(error)}`));
    worker.on('exit', () => {
      instance.dead = true;
      const index = this.#instances.indexOf(instance);
      if (index >= 0) this.#instances.splice(index, 1);
      this.#waiting.shift()?.();
    });
    worker.unref();
    this.#instances.push(instance);
    this.coldStarts++;
    return instance;
  }

  async #acquire(): Promise<Instance> {
    for (;;) {
      if (this.#stopped) throw new Error(`${this.#options.name} is stopped`);
      const idle = this.#instances.find((instance) => !instance.busy && !instance.dead);
      if (idle) {
        idle.busy = true;
        return idle;
      }
      if (this.#instances.length < (this.#options.maxInstances ?? 10)) {
        const fresh = this.#spawn();
        fresh.busy = true;
        return fresh;
      }
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    }
  }

  #release(instance: Instance) {
    instance.busy = false;
    this.#waiting.shift()?.();
  }

  /** Invokes the function with `event`; rejects with FunctionError when the function fails or times out. */
  async invoke(event: unknown, requestId?: string): Promise<unknown> {
    const instance = await this.#acquire();
    this.invocations++;
    const id = nextId++;
    const timeoutMs = this.#options.timeoutSeconds * 1000;
    try {
      return await new Promise<unknown>((resolve, reject) => {
        const expire = (type: string, message: string) => () => {
          this.#pending.delete(id);
          // Lambda stops the sandbox: the next invocation starts cold.
          void instance.worker.terminate();
          reject(new FunctionError(this.#options.name, type, message));
        };
        // Lambda's init phase may take 10 s; a loaded machine gets three times that here.
        let timer = setTimeout(
          expire('Runtime.InitTimeout', 'the handler did not load in 30 seconds'),
          30_000,
        );
        const started = () => {
          clearTimeout(timer);
          timer = setTimeout(
            expire('Sandbox.Timedout', `Task timed out after ${this.#options.timeoutSeconds} seconds`),
            timeoutMs,
          );
        };
        const onExit = () => {
          if (!this.#pending.has(id)) return;
          this.#pending.delete(id);
          clearTimeout(timer);
          reject(new FunctionError(this.#options.name, 'Runtime.ExitError', 'the instance exited'));
        };
        const settle =
          <T>(done: (value: T) => void) =>
          (value: T) => {
            clearTimeout(timer);
            instance.worker.off('exit', onExit);
            done(value);
          };
        this.#pending.set(id, { started, resolve: settle(resolve), reject: settle(reject) });
        instance.worker.once('exit', onExit);
        instance.worker.postMessage({ id, event, requestId, timeoutMs });
      });
    } finally {
      this.#release(instance);
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    for (const wake of this.#waiting.splice(0)) wake();
    await Promise.all(this.#instances.map((instance) => instance.worker.terminate()));
  }
}
