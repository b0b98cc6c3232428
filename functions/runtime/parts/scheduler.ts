import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { EventBridgeScheduler } from '../../adapters/aws/scheduler.ts';
import { TableSchedules } from '../../adapters/local/table-schedules.ts';
import type { Scheduler } from '../../ports/scheduler.ts';
import { env } from '../../shared/env.ts';
import { part } from '../compose.ts';

/** One-time schedules of posts (EventBridge Scheduler on AWS, schedules in the table locally). */
export const scheduler = part({
  name: 'scheduler',
  keys: ['scheduler'],
  build: ({ table }, { decorated, decorators, lazy }): { scheduler: () => Scheduler } => ({
    scheduler: lazy(() => {
      const made =
        env.runtime === 'aws'
          ? new EventBridgeScheduler({
              client: decorated(new SchedulerClient({})),
              groupName: env.schedulerGroup,
              roleArn: env.schedulerRoleArn,
              targetArn: env.schedulerTargetArn,
            })
          : // The local runtime's own ticker (TableScheduler) fires them; functions only write them.
            new TableSchedules({ table, targetArn: env.schedulerTargetArn });
      return decorators.scheduler?.(made) ?? made;
    }),
  }),
});
