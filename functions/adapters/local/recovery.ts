import { GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { JobQueue } from '../../ports/publishing.ts';
import type { TableRef } from '../aws/dynamo/client.ts';
import { keys } from '../aws/dynamo/keys.ts';

/**
 * The local SQS stand-in keeps messages in memory, so a restart loses jobs in flight (SQS on AWS
 * does not). On start the local runtime puts them back: a job for every post still publishing,
 * and a firing for every scheduled post whose schedule already fired. A Scan is fine here: it
 * runs once per local start, never on a request path.
 */
export const requeueLostJobs = async (table: TableRef, queue: JobQueue): Promise<number> => {
  let requeued = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await table.doc.send(
      new ScanCommand({
        TableName: table.tableName,
        FilterExpression: '#type = :post AND #status IN (:publishing, :scheduled)',
        ExpressionAttributeNames: { '#type': 'type', '#status': 'status' },
        ExpressionAttributeValues: {
          ':post': 'Post',
          ':publishing': 'publishing',
          ':scheduled': 'scheduled',
        },
        ProjectionExpression: 'postId, #status, scheduledAt, scheduleName, round',
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? []) {
      const postId = item.postId as string;
      if (item.status === 'publishing') {
        await queue.sendPublish({ postId, kind: 'run', round: (item.round as number | undefined) ?? 1 });
        requeued++;
        continue;
      }
      // The post names its schedule (posts saved before schedules had names of their own: the post id).
      const name = item.scheduleName === undefined ? postId : (item.scheduleName as string | null);
      const schedule = name
        ? await table.doc.send(new GetCommand({ TableName: table.tableName, Key: keys.schedule(name) }))
        : { Item: undefined };
      if (!schedule.Item && typeof item.scheduledAt === 'string') {
        const wait = Math.max(0, Math.floor((Date.parse(item.scheduledAt) - Date.now()) / 1000) - 1);
        await queue.sendPublish({ postId, kind: 'scheduled', scheduledAt: item.scheduledAt }, wait);
        requeued++;
      }
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return requeued;
};
