/** The Scheduler port on AWS: one EventBridge Scheduler one-time `at()` schedule per name, targeting an SQS queue. */
import {
  CreateScheduleCommand,
  type CreateScheduleCommandInput,
  DeleteScheduleCommand,
  type SchedulerClient,
  UpdateScheduleCommand,
} from '@aws-sdk/client-scheduler';
import type { Scheduler } from '../../ports/scheduler.ts';

// By name rather than instanceof, which fails when two copies of the SDK are loaded.
const isAwsError = (error: unknown, name: string): boolean =>
  (error as { name?: unknown } | null)?.name === name;

const SCHEDULE_NAME = /^[0-9a-zA-Z\-_.]{1,64}$/;

/** Throws unless `name` is a valid EventBridge schedule name (1-64 of `0-9 a-z A-Z - _ .`); the local scheduler applies the same rule. */
export function assertScheduleName(name: string): void {
  if (!SCHEDULE_NAME.test(name)) {
    throw new Error(`Invalid schedule name ${JSON.stringify(name)}: use 1-64 characters from [0-9a-zA-Z-_.]`);
  }
}

/** Throws unless `at` is a valid date. */
export function assertScheduleDate(at: Date): void {
  if (!(at instanceof Date) || Number.isNaN(at.getTime())) throw new Error('Invalid schedule time');
}

/**
 * `at(yyyy-mm-ddThh:mm:ss)` in UTC. EventBridge takes whole seconds; a fractional time is rounded
 * up so a schedule never fires before the time asked for.
 */
export function atExpression(at: Date): string {
  assertScheduleDate(at);
  const seconds = Math.ceil(at.getTime() / 1000) * 1000;
  return `at(${new Date(seconds).toISOString().slice(0, 19)})`;
}

export interface EventBridgeSchedulerOptions {
  client: SchedulerClient;
  groupName: string;
  /** Role EventBridge Scheduler assumes to send to the target. */
  roleArn: string;
  /** ARN of the SQS queue the payload is sent to. */
  targetArn: string;
}

export class EventBridgeScheduler implements Scheduler {
  readonly #options: EventBridgeSchedulerOptions;

  constructor(options: EventBridgeSchedulerOptions) {
    this.#options = options;
  }

  async scheduleOnce(name: string, at: Date, payload: Record<string, unknown>): Promise<void> {
    assertScheduleName(name);
    const { client, groupName, roleArn, targetArn } = this.#options;
    const input: CreateScheduleCommandInput = {
      Name: name,
      GroupName: groupName,
      ScheduleExpression: atExpression(at),
      ScheduleExpressionTimezone: 'UTC',
      FlexibleTimeWindow: { Mode: 'OFF' },
      ActionAfterCompletion: 'DELETE',
      Target: { Arn: targetArn, RoleArn: roleArn, Input: JSON.stringify(payload) },
    };
    // Create, or update when it exists. A schedule that fires (and deletes itself) between the two
    // calls makes the update miss: create it again.
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await client.send(new CreateScheduleCommand(input));
        return;
      } catch (error) {
        if (!isAwsError(error, 'ConflictException')) throw error;
      }
      try {
        await client.send(new UpdateScheduleCommand(input));
        return;
      } catch (error) {
        if (!isAwsError(error, 'ResourceNotFoundException')) throw error;
      }
    }
    throw new Error(`Schedule ${name} kept changing while being written; giving up`);
  }

  async cancel(name: string): Promise<void> {
    assertScheduleName(name);
    try {
      await this.#options.client.send(
        new DeleteScheduleCommand({ Name: name, GroupName: this.#options.groupName }),
      );
    } catch (error) {
      if (isAwsError(error, 'ResourceNotFoundException')) return;
      throw error;
    }
  }
}
