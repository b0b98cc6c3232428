import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

/**
 * The longest timeout a queue worker may run with; visibility is six times this. A worker of the
 * manifest with a longer timeout fails synth (see `HeraldWorkers`) rather than silently shortening
 * the margin for retries.
 */
export const WORKER_TIMEOUT = Duration.seconds(60);
export const MAX_RECEIVE_COUNT = 5;
/** A queue's visibility timeout is at least this many times its consumer's function timeout. */
export const VISIBILITY_TIMEOUT_FACTOR = 6;

export const QUEUE_NAMES = ['publish', 'event', 'delivery', 'metrics'] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];

export interface QueueWithDlq {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  /** The work queue's visibility timeout (consumers must time out within a sixth of it). */
  readonly visibilityTimeout: Duration;
}

const pascal = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

/** The work queues, each with its own dead-letter queue. */
export class HeraldQueues extends Construct {
  readonly byName: Record<QueueName, QueueWithDlq>;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const make = (name: QueueName): QueueWithDlq => {
      const deadLetterQueue = new Queue(this, `${pascal(name)}Dlq`, {
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        retentionPeriod: Duration.days(14),
        // Generated names: a re-created stack makes new queues, and what waited in the old ones
        // (work the sweeps find again from the table) stays there to inspect.
        removalPolicy: RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
      });
      // AWS's guidance for Lambda event sources: at least six times the function timeout.
      const visibilityTimeout = Duration.seconds(WORKER_TIMEOUT.toSeconds() * VISIBILITY_TIMEOUT_FACTOR);
      const queue = new Queue(this, `${pascal(name)}Queue`, {
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        visibilityTimeout,
        retentionPeriod: Duration.days(4),
        deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: MAX_RECEIVE_COUNT },
        removalPolicy: RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
      });
      return { queue, deadLetterQueue, visibilityTimeout };
    };
    this.byName = {
      publish: make('publish'),
      event: make('event'),
      delivery: make('delivery'),
      metrics: make('metrics'),
    };
  }
}
