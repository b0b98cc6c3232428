import {
  ConflictException,
  CreateScheduleCommand,
  DeleteScheduleCommand,
  ResourceNotFoundException,
  SchedulerClient,
  UpdateScheduleCommand,
  ValidationException,
} from '@aws-sdk/client-scheduler';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { atExpression, EventBridgeScheduler } from '../../functions/adapters/aws/scheduler.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const mock = mockClient(SchedulerClient);
// The mock replaces the client class's send for the whole process: undone for the files after this one.
afterAll(() => mock.restore());
const options = {
  client: new SchedulerClient({ region: 'eu-west-1' }),
  groupName: 'herald',
  roleArn: 'arn:aws:iam::123456789012:role/herald-scheduler',
  targetArn: 'arn:aws:sqs:eu-west-1:123456789012:herald-publish',
};
const scheduler = new EventBridgeScheduler(options);
const details = (message: string) => ({ message, Message: message, $metadata: {} });

const expectedInput = {
  Name: 'post_abc123',
  GroupName: 'herald',
  ScheduleExpression: 'at(2030-03-01T12:34:56)',
  ScheduleExpressionTimezone: 'UTC',
  FlexibleTimeWindow: { Mode: 'OFF' },
  ActionAfterCompletion: 'DELETE',
  Target: {
    Arn: 'arn:aws:sqs:eu-west-1:123456789012:herald-publish',
    RoleArn: 'arn:aws:iam::123456789012:role/herald-scheduler',
    Input: '{"postId":"post_abc123","kind":"publish"}',
  },
};

beforeEach(() => {
  mock.reset();
});

describe('EventBridgeScheduler', () => {
  it('creates a one-time at() schedule in UTC that deletes itself, targeting the queue', async () => {
    mock.on(CreateScheduleCommand).resolves({ ScheduleArn: 'arn:schedule' });
    await scheduler.scheduleOnce('post_abc123', new Date('2030-03-01T12:34:56.000Z'), {
      postId: 'post_abc123',
      kind: 'publish',
    });
    expect(mock.calls()).toHaveLength(1);
    expect(mock.commandCalls(CreateScheduleCommand)[0]?.args[0].input).toEqual(expectedInput);
  });

  it('writes the time in UTC whatever the Date was built from, rounding a fraction of a second up', () => {
    expect(atExpression(new Date('2030-03-01T14:34:56+02:00'))).toBe('at(2030-03-01T12:34:56)');
    expect(atExpression(new Date('2030-03-01T12:34:56.001Z'))).toBe('at(2030-03-01T12:34:57)');
    expect(atExpression(new Date('2030-12-31T23:59:59.500Z'))).toBe('at(2031-01-01T00:00:00)');
    expect(() => atExpression(new Date(Number.NaN))).toThrow(/Invalid schedule time/);
  });

  it('moves an existing schedule with UpdateSchedule and the same fields', async () => {
    mock.on(CreateScheduleCommand).rejects(new ConflictException(details('exists')));
    mock.on(UpdateScheduleCommand).resolves({ ScheduleArn: 'arn:schedule' });
    await scheduler.scheduleOnce('post_abc123', new Date('2030-03-01T12:34:56Z'), {
      postId: 'post_abc123',
      kind: 'publish',
    });
    expect(mock.commandCalls(CreateScheduleCommand)).toHaveLength(1);
    expect(mock.commandCalls(UpdateScheduleCommand)).toHaveLength(1);
    expect(mock.commandCalls(UpdateScheduleCommand)[0]?.args[0].input).toEqual(expectedInput);
  });

  it('creates again when the schedule fired and deleted itself between create and update', async () => {
    mock
      .on(CreateScheduleCommand)
      .rejectsOnce(new ConflictException(details('exists')))
      .resolves({ ScheduleArn: 'arn:schedule' });
    mock.on(UpdateScheduleCommand).rejects(new ResourceNotFoundException(details('gone')));
    await scheduler.scheduleOnce('post_abc123', new Date('2030-03-01T12:34:56Z'), {});
    expect(mock.commandCalls(CreateScheduleCommand)).toHaveLength(2);
    expect(mock.commandCalls(UpdateScheduleCommand)).toHaveLength(1);
  });

  it('passes other errors on without trying to update', async () => {
    mock.on(CreateScheduleCommand).rejects(new ValidationException(details('bad')));
    await expect(scheduler.scheduleOnce('post_abc123', new Date('2030-03-01T12:34:56Z'), {})).rejects.toThrow(
      'bad',
    );
    expect(mock.commandCalls(UpdateScheduleCommand)).toHaveLength(0);
  });

  it('cancels with DeleteSchedule in the group', async () => {
    mock.on(DeleteScheduleCommand).resolves({});
    await scheduler.cancel('post_abc123');
    expect(mock.calls()).toHaveLength(1);
    expect(mock.commandCalls(DeleteScheduleCommand)[0]?.args[0].input).toEqual({
      Name: 'post_abc123',
      GroupName: 'herald',
    });
  });

  it('treats cancelling a missing schedule as done, and passes other errors on', async () => {
    mock.on(DeleteScheduleCommand).rejectsOnce(new ResourceNotFoundException(details('gone')));
    await expect(scheduler.cancel('post_abc123')).resolves.toBeUndefined();
    mock.on(DeleteScheduleCommand).rejects(new ValidationException(details('denied')));
    await expect(scheduler.cancel('post_abc123')).rejects.toThrow('denied');
  });

  it.each(['', 'x'.repeat(65), 'post/1', 'post#1', 'post 1', 'pöst'])(
    'refuses the schedule name %j without calling AWS',
    async (name) => {
      await expect(scheduler.scheduleOnce(name, new Date('2030-03-01T12:34:56Z'), {})).rejects.toThrow(
        /Invalid schedule name/,
      );
      await expect(scheduler.cancel(name)).rejects.toThrow(/Invalid schedule name/);
      expect(mock.calls()).toHaveLength(0);
    },
  );

  it('accepts names of 1 to 64 characters from [0-9a-zA-Z-_.]', async () => {
    mock.on(CreateScheduleCommand).resolves({ ScheduleArn: 'arn:schedule' });
    for (const name of ['a', 'x'.repeat(64), 'post_AZaz09-_.retry.3']) {
      await scheduler.scheduleOnce(name, new Date('2030-03-01T12:34:56Z'), {});
    }
    expect(mock.commandCalls(CreateScheduleCommand).map((call) => call.args[0].input.Name)).toEqual([
      'a',
      'x'.repeat(64),
      'post_AZaz09-_.retry.3',
    ]);
  });
});
