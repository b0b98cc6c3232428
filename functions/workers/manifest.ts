/**
 * Queue consumers: which worker module consumes which queue. The CDK stack wires each as a
 * Lambda event source mapping (partial batch responses on); the local runtime starts one
 * poller per entry that plays the same mapping. Later capabilities add their workers here.
 */
export type QueueName = 'publish' | 'event' | 'delivery' | 'metrics';

export interface WorkerDef {
  queue: QueueName;
  /** Worker module relative to the repository root; it exports `handler(event: SQSEvent)`. */
  entry: string;
  batchSize: number;
}

export const workers: WorkerDef[] = [];
