import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { EventBridgeScheduler } from '../../adapters/aws/scheduler.ts';
import { TableScheduler } from '../../adapters/local/table-scheduler.ts';
import type { Scheduler } from '../../ports/scheduler.ts';
import { env } from '../../shared/env.ts';
import { part } from '../compose.ts';
import { queues } from './queues.ts';

/** One-time schedules of posts (EventBridge Scheduler on AWS, schedules in the table locally). */
export const scheduler = part({
  name: 'scheduler',
  keys: ['scheduler'],
  needs: [queues],
  build: ({ table, sqs }, { decorated, decorators, lazy }): { scheduler: () => Scheduler } => ({
    scheduler: lazy(() => {
      const made =
        env.runtime === 'aws'
          ? new EventBridgeScheduler({
              client: decorated(new SchedulerClient({})),
              groupName: env.schedulerGroup,
              roleArn: env.schedulerRoleArn,
              targetArn: env.schedulerTargetArn,
            })
          : // The local runtime's own instance runs the ticker; handlers' instances only write schedules.
            new TableScheduler({ table, sqs: sqs(), targetArn: env.schedulerTargetArn });
      return decorators.scheduler?.(made) ?? made;
    }),
  }),
});
