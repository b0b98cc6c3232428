import { createHash } from 'node:crypto';
import { Stack, Validations } from 'aws-cdk-lib';
import { type IRole, ManagedPolicy, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import type { Grant } from '../../functions/shared/grants.ts';
import { applyGrant, type GrantTargets } from './grants.ts';

const ID = 'FunctionRoles';

/** `table:read,table:write`: the same key for the same grants, whatever their order or repeats. */
export const grantKey = (grants: readonly Grant[]): string => [...new Set(grants)].sort().join(',');

/**
 * One execution role per distinct set of manifest grants, shared by the functions that list that
 * set. Each function still holds exactly its own grants (the role is the set), at 2 resources
 * (role and policy) per set instead of per function: most routes list the same
 * `table:read, table:write`, and CloudFormation allows 500 resources a stack.
 */
export class FunctionRoles extends Construct {
  private readonly roles = new Map<string, Role>();

  /** The stack's one FunctionRoles. */
  static of(scope: Construct): FunctionRoles {
    const stack = Stack.of(scope);
    return (stack.node.tryFindChild(ID) as FunctionRoles | undefined) ?? new FunctionRoles(stack, ID);
  }

  /**
   * The role holding exactly `grants` (and what every function needs: its logs and X-Ray).
   * `consumes` names the queue a worker reads: its event source adds the queue's receive and delete
   * permissions to the role, so a worker's role is never shared with a function that reads none.
   */
  roleFor(grants: readonly Grant[], targets: GrantTargets, consumes?: string): IRole {
    const key = [grantKey(grants), ...(consumes ? [`consumes ${consumes} queue`] : [])].join('; ');
    const existing = this.roles.get(key);
    if (existing) return existing;
    // Named by a digest of the set, so a role keeps its logical id whatever functions come or go.
    const digest = createHash('sha256').update(key).digest('hex').slice(0, 10);
    const role = new Role(this, `Grants${digest}`, {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Herald functions granted: ${key || 'nothing (logs and tracing only)'}`.slice(0, 1000),
      managedPolicies: [ManagedPolicy.fromAwsManagedPolicyName('service-role/AWSLambdaBasicExecutionRole')],
    });
    for (const grant of new Set(grants)) applyGrant(role, grant, targets);
    const acknowledge = (id: string, reason: string) => Validations.of(role).acknowledge({ id, reason });
    acknowledge(
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      'AWS managed basic execution policy: lets the function write its own CloudWatch logs, nothing else.',
    );
    acknowledge(
      'AwsSolutions-IAM5[Resource::*]',
      'X-Ray active tracing: xray:PutTraceSegments and xray:PutTelemetryRecords do not support resource-level permissions.',
    );
    this.roles.set(key, role);
    return role;
  }
}
