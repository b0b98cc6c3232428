import { Duration } from 'aws-cdk-lib';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Construct } from 'constructs';
import type { WorkerDef } from '../../functions/workers/manifest.ts';
import { FunctionRoles } from './function-roles.ts';
import type { GrantTargets } from './grants.ts';
import { HandlerFunction } from './handler-function.ts';
import { type QueueName, type QueueWithDlq, VISIBILITY_TIMEOUT_FACTOR } from './queues.ts';

/** The manifest shape the workers are built from (`functions/workers/manifest.ts` unless a test supplies one). */
export interface WorkerManifest {
  readonly workers: readonly WorkerDef[];
}

export interface HeraldWorkersProps {
  readonly manifest: WorkerManifest;
  readonly sourceRoot: string;
  readonly environment: Record<string, string>;
  readonly grantTargets: GrantTargets;
  /** The work queues the workers consume, by name. */
  readonly queues: Record<QueueName, QueueWithDlq>;
  /** Most concurrent invocations one queue's event source may start (SQS allows 2 to 1000). */
  readonly maxConcurrency?: number;
}

/** One built worker: its manifest entry and its function. */
export interface Worker {
  readonly def: WorkerDef;
  readonly fn: HandlerFunction;
}

/** Lambda takes at most 10 SQS messages per batch unless it may wait to gather more. */
const MAX_BATCH_WITHOUT_WINDOW = 10;
/** How long Lambda may gather messages when a worker asks for more than 10 per batch. */
const BATCHING_WINDOW = Duration.seconds(1);

/** `functions/workers/publish.ts` -> `PublishWorker`: a stable construct id per worker module. */
export const workerIdFor = (entry: string): string =>
  `${entry
    .replace(/^functions\/workers\//, '')
    .replace(/\.[cm]?[jt]s$/, '')
    .split(/[/\-_.]/)
    .filter(Boolean)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('')}Worker`;

/**
 * The queue consumers: one function per worker of the manifest, with the manifest's timeout and
 * grants, fed by an SQS event source mapping on its queue with partial batch responses on.
 */
export class HeraldWorkers extends Construct {
  readonly workers: Worker[] = [];

  constructor(scope: Construct, id: string, props: HeraldWorkersProps) {
    super(scope, id);
    const maxConcurrency = props.maxConcurrency ?? 20;
    const seen = new Set<string>();

    for (const def of props.manifest.workers) {
      const where = `Worker ${def.entry} (queue ${def.queue})`;
      if (seen.has(def.entry)) throw new Error(`${where} is listed twice; give each worker its own module`);
      seen.add(def.entry);

      const queue = props.queues[def.queue] as QueueWithDlq | undefined;
      if (!queue)
        throw new Error(`${where}: no such queue; expected one of ${Object.keys(props.queues).join(', ')}`);
      if (!Number.isInteger(def.timeoutSeconds) || def.timeoutSeconds < 1 || def.timeoutSeconds > 900)
        throw new Error(
          `${where}: timeoutSeconds must be a whole number from 1 to 900, got ${def.timeoutSeconds}`,
        );
      const visibility = queue.visibilityTimeout.toSeconds();
      if (def.timeoutSeconds * VISIBILITY_TIMEOUT_FACTOR > visibility) {
        throw new Error(
          `${where}: timeoutSeconds ${def.timeoutSeconds} is too long for the ${def.queue} queue, whose ` +
            `visibility timeout of ${visibility} s must be at least ${VISIBILITY_TIMEOUT_FACTOR} times the ` +
            `function timeout; use at most ${Math.floor(visibility / VISIBILITY_TIMEOUT_FACTOR)} s ` +
            '(or raise WORKER_TIMEOUT in lib/constructs/queues.ts, which changes every queue)',
        );
      }
      if (!Number.isInteger(def.batchSize) || def.batchSize < 1 || def.batchSize > 10_000)
        throw new Error(`${where}: batchSize must be a whole number from 1 to 10000, got ${def.batchSize}`);

      const fn = new HandlerFunction(this, workerIdFor(def.entry), {
        entry: def.entry,
        sourceRoot: props.sourceRoot,
        description: `Herald: ${def.queue} queue worker`,
        environment: props.environment,
        timeout: Duration.seconds(def.timeoutSeconds),
        role: FunctionRoles.of(this).roleFor(def.grants, props.grantTargets, def.queue),
      });
      // Grants the function's role (its queue's own: see FunctionRoles.roleFor) ReceiveMessage,
      // DeleteMessage, ChangeMessageVisibility and GetQueueAttributes on this queue only (SSE-SQS
      // needs no KMS permission).
      fn.addEventSource(
        new SqsEventSource(queue.queue, {
          batchSize: def.batchSize,
          reportBatchItemFailures: true,
          maxConcurrency,
          ...(def.batchSize > MAX_BATCH_WITHOUT_WINDOW ? { maxBatchingWindow: BATCHING_WINDOW } : {}),
        }),
      );
      this.workers.push({ def, fn });
    }
  }
}
