import { Stack, Validations } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { type IRole, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Grant } from '../../functions/http/routes.ts';
import { TABLE_INDEXES } from './table.ts';

/** The resources a function's manifest grants can name. */
export interface GrantTargets {
  readonly table: ITableV2;
  /** The media bucket's ARN as an import of a named export, and that export's name. */
  readonly mediaBucket: { readonly arn: string; readonly arnExportName: string };
  readonly publishQueue: IQueue;
  readonly eventQueue: IQueue;
  readonly deliveryQueue: IQueue;
  readonly tokenKey: IKey;
  readonly scheduleGroupName: string;
  readonly schedulerRole: IRole;
}

/** The actions `scheduler:manage` allows, on the schedules of our group only. */
export const SCHEDULE_ACTIONS = [
  'scheduler:CreateSchedule',
  'scheduler:UpdateSchedule',
  'scheduler:DeleteSchedule',
  'scheduler:GetSchedule',
];

/** What `table:read` allows: the item reads of `grantReadData`, without its stream actions. */
export const TABLE_READ_ACTIONS = [
  'dynamodb:BatchGetItem',
  'dynamodb:ConditionCheckItem',
  'dynamodb:DescribeTable',
  'dynamodb:GetItem',
  'dynamodb:Query',
  'dynamodb:Scan',
];

/** What `table:write` allows: the item writes of `grantWriteData` (transactions check these per item). */
export const TABLE_WRITE_ACTIONS = [
  'dynamodb:BatchWriteItem',
  'dynamodb:DeleteItem',
  'dynamodb:DescribeTable',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
];

/** ARN pattern of every schedule in a group (what `scheduler:manage` is scoped to). */
export const scheduleArnPattern = (stack: Stack, groupName: string): string =>
  stack.formatArn({ service: 'scheduler', resource: 'schedule', resourceName: `${groupName}/*` });

const mediaObjects = (targets: GrantTargets) => `${targets.mediaBucket.arn}/*`;

const acknowledgeMediaObjects = (fn: IFunction, targets: GrantTargets) =>
  Validations.of(fn).acknowledge({
    id: `AwsSolutions-IAM5[Resource::${targets.mediaBucket.arnExportName}/*]`,
    reason:
      'Media object keys are generated per upload; the wildcard covers objects of the media bucket only, with object-level actions only.',
  });

/**
 * Turns one manifest grant into the narrowest IAM permission that serves it. A function gets
 * nothing beyond the grants its route lists.
 */
export function applyGrant(fn: IFunction, grant: Grant, targets: GrantTargets): void {
  switch (grant) {
    // Like grantReadData/grantWriteData, but naming our two indexes instead of `index/*`: no
    // wildcard to justify, and a new index is a deliberate grant change.
    case 'table:read':
      fn.addToRolePolicy(
        new PolicyStatement({
          actions: TABLE_READ_ACTIONS,
          resources: [
            targets.table.tableArn,
            ...TABLE_INDEXES.map((index) => `${targets.table.tableArn}/index/${index.name}`),
          ],
        }),
      );
      return;
    case 'table:write':
      fn.addToRolePolicy(
        new PolicyStatement({ actions: TABLE_WRITE_ACTIONS, resources: [targets.table.tableArn] }),
      );
      return;
    case 'bucket:read':
      // Presigned GETs and HEADs are signed with the function's credentials: object reads only.
      fn.addToRolePolicy(
        new PolicyStatement({ actions: ['s3:GetObject'], resources: [mediaObjects(targets)] }),
      );
      acknowledgeMediaObjects(fn, targets);
      return;
    case 'bucket:write':
      fn.addToRolePolicy(
        new PolicyStatement({
          actions: ['s3:PutObject', 's3:DeleteObject', 's3:AbortMultipartUpload'],
          resources: [mediaObjects(targets)],
        }),
      );
      acknowledgeMediaObjects(fn, targets);
      return;
    case 'publishQueue:send':
      targets.publishQueue.grantSendMessages(fn);
      return;
    case 'eventQueue:send':
      targets.eventQueue.grantSendMessages(fn);
      return;
    case 'deliveryQueue:send':
      targets.deliveryQueue.grantSendMessages(fn);
      return;
    case 'tokenKey:encrypt':
      targets.tokenKey.grant(fn, 'kms:Encrypt');
      return;
    case 'tokenKey:decrypt':
      targets.tokenKey.grant(fn, 'kms:Decrypt');
      return;
    case 'scheduler:manage':
      fn.addToRolePolicy(
        new PolicyStatement({
          actions: SCHEDULE_ACTIONS,
          resources: [scheduleArnPattern(Stack.of(fn), targets.scheduleGroupName)],
        }),
      );
      Validations.of(fn).acknowledge({
        id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:scheduler:<AWS::Region>:<AWS::AccountId>:schedule/${targets.scheduleGroupName}/*]`,
        reason:
          'Schedule names are created at run time (one per scheduled post); the wildcard is confined to our own schedule group.',
      });
      fn.addToRolePolicy(
        new PolicyStatement({
          actions: ['iam:PassRole'],
          resources: [targets.schedulerRole.roleArn],
          conditions: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
        }),
      );
      return;
    default: {
      const unknown: never = grant;
      throw new Error(`No IAM mapping for grant ${String(unknown)}`);
    }
  }
}
