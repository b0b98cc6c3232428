import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

/** Timeout the queue workers will run with (later issues add them); visibility is six times this. */
export const WORKER_TIMEOUT = Duration.seconds(60);
export const MAX_RECEIVE_COUNT = 5;

export const QUEUE_NAMES = ['publish', 'event', 'delivery', 'metrics'] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];

export interface QueueWithDlq {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
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
        removalPolicy: RemovalPolicy.RETAIN,
      });
      const queue = new Queue(this, `${pascal(name)}Queue`, {
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        // AWS's guidance for Lambda event sources: at least six times the function timeout.
        visibilityTimeout: Duration.seconds(WORKER_TIMEOUT.toSeconds() * 6),
        retentionPeriod: Duration.days(4),
        deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: MAX_RECEIVE_COUNT },
        removalPolicy: RemovalPolicy.RETAIN,
      });
      return { queue, deadLetterQueue };
    };
    this.byName = {
      publish: make('publish'),
      event: make('event'),
      delivery: make('delivery'),
      metrics: make('metrics'),
    };
  }
}
