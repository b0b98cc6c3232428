import { ArnFormat, Stack, Validations } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { type IRole, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { GRANT_STATEMENTS, type Grant, type GrantResource } from '../../functions/shared/grants.ts';
import { TABLE_INDEXES } from './table.ts';

// The action lists live with the statements the local runtime checks; re-exported for the stack's tests.
export {
  QUEUE_SEND_ACTIONS,
  SCHEDULE_ACTIONS,
  TABLE_READ_ACTIONS,
  TABLE_WRITE_ACTIONS,
} from '../../functions/shared/grants.ts';

/** The resources a function's manifest grants can name. */
export interface GrantTargets {
  readonly table: ITableV2;
  /** The media bucket's ARN as an import of a named export, and that export's name. */
  readonly mediaBucket: { readonly arn: string; readonly arnExportName: string };
  readonly publishQueue: IQueue;
  readonly eventQueue: IQueue;
  readonly deliveryQueue: IQueue;
  readonly metricsQueue: IQueue;
  readonly tokenKey: IKey;
  readonly scheduleGroupName: string;
  readonly schedulerRole: IRole;
  /** Name prefix of the networks' app-credential secrets (`<prefix><network>`). */
  readonly appSecretPrefix: string;
}

/** ARN pattern of the app-credential secrets (Secrets Manager appends a random suffix to each name). */
export const appSecretArnPattern = (stack: Stack, prefix: string): string =>
  stack.formatArn({
    service: 'secretsmanager',
    resource: 'secret',
    resourceName: `${prefix}*`,
    arnFormat: ArnFormat.COLON_RESOURCE_NAME,
  });

/** ARN pattern of every schedule in a group (what `scheduler:manage` is scoped to). */
export const scheduleArnPattern = (stack: Stack, groupName: string): string =>
  stack.formatArn({ service: 'scheduler', resource: 'schedule', resourceName: `${groupName}/*` });

/** The ARNs of one named resource of the grant statements. */
const arnsOf = (resource: GrantResource, targets: GrantTargets, role: IRole): string[] => {
  switch (resource) {
    case 'table':
      return [targets.table.tableArn];
    case 'tableIndexes':
      return TABLE_INDEXES.map((index) => `${targets.table.tableArn}/index/${index.name}`);
    case 'mediaObjects':
      return [`${targets.mediaBucket.arn}/*`];
    case 'mediaBucket':
      return [targets.mediaBucket.arn];
    case 'publishQueue':
      return [targets.publishQueue.queueArn];
    case 'eventQueue':
      return [targets.eventQueue.queueArn];
    case 'deliveryQueue':
      return [targets.deliveryQueue.queueArn];
    case 'metricsQueue':
      return [targets.metricsQueue.queueArn];
    case 'tokenKey':
      return [targets.tokenKey.keyArn];
    case 'schedules':
      return [scheduleArnPattern(Stack.of(role), targets.scheduleGroupName)];
    case 'schedulerRole':
      return [targets.schedulerRole.roleArn];
    case 'appSecrets':
      return [appSecretArnPattern(Stack.of(role), targets.appSecretPrefix)];
    default: {
      const unknown: never = resource;
      throw new Error(`No ARN for grant resource ${String(unknown)}`);
    }
  }
};

/** The wildcards some resources need, acknowledged where they arise (cdk-nag's AwsSolutions-IAM5). */
const acknowledgeWildcard = (resource: GrantResource, role: IRole, targets: GrantTargets): void => {
  if (resource === 'mediaObjects') {
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${targets.mediaBucket.arnExportName}/*]`,
      reason:
        'Media object keys are generated per upload; the wildcard covers objects of the media bucket only, with object-level actions only.',
    });
  }
  if (resource === 'appSecrets') {
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:${targets.appSecretPrefix}*]`,
      reason:
        "Secrets Manager appends a random suffix to each secret name; the wildcard covers only the networks' app-credential secrets, read-only.",
    });
  }
  if (resource === 'schedules') {
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:scheduler:<AWS::Region>:<AWS::AccountId>:schedule/${targets.scheduleGroupName}/*]`,
      reason:
        'Schedule names are created at run time (one per scheduled post); the wildcard is confined to our own schedule group.',
    });
  }
};

/**
 * Turns one manifest grant into the narrowest IAM permission that serves it: exactly the
 * statements of GRANT_STATEMENTS, which the local runtime enforces too. A function's role holds
 * nothing beyond the grants its manifest entry lists (lib/constructs/function-roles.ts).
 */
export function applyGrant(role: IRole, grant: Grant, targets: GrantTargets): void {
  for (const statement of GRANT_STATEMENTS[grant]) {
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: [...statement.actions],
        resources: statement.resources.flatMap((resource) => arnsOf(resource, targets, role)),
        ...(statement.conditions ? { conditions: { ...statement.conditions } } : {}),
      }),
    );
    for (const resource of statement.resources) acknowledgeWildcard(resource, role, targets);
  }
}
