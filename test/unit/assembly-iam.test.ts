import { describe, expect, it } from 'vitest';
import {
  type CloudAssemblyModel,
  resolveValue,
  type StackTemplate,
} from '../../functions/adapters/local/assembly.ts';
import { type ResolvedStatement, statementsAllow } from '../../functions/adapters/local/assembly-iam.ts';

const TABLE = 'arn:aws:dynamodb:us-east-1:000000000000:table/herald';
/** CloudFormation's own placeholders, as a template writes them. */
const SECRETS_SUB = `arn:\${AWS::Partition}:secretsmanager:\${AWS::Region}:\${AWS::AccountId}:secret:herald-dev/*`;

const allow = (statement: Partial<ResolvedStatement>): ResolvedStatement => ({
  effect: 'Allow',
  actions: [],
  resources: [],
  conditions: {},
  ...statement,
});

describe('the rehearsal evaluates a template’s identity policy as IAM does', () => {
  it('allows an action on a resource only where a statement names both (wildcards included)', () => {
    const statements = [
      allow({ actions: ['dynamodb:GetItem', 'dynamodb:Query'], resources: [TABLE, `${TABLE}/index/*`] }),
    ];
    expect(statementsAllow(statements, { action: 'dynamodb:GetItem', resource: null, arn: TABLE })).toBe(
      true,
    );
    expect(
      statementsAllow(statements, { action: 'dynamodb:Query', resource: null, arn: `${TABLE}/index/gsi1` }),
    ).toBe(true);
    expect(statementsAllow(statements, { action: 'dynamodb:PutItem', resource: null, arn: TABLE })).toBe(
      false,
    );
    expect(
      statementsAllow(statements, { action: 'dynamodb:GetItem', resource: null, arn: `${TABLE}-other` }),
    ).toBe(false);
    // Actions are case-insensitive, resources are not.
    expect(statementsAllow(statements, { action: 'DynamoDB:getitem', resource: null, arn: TABLE })).toBe(
      true,
    );
  });

  it('lets an explicit Deny win over any Allow', () => {
    const statements = [
      allow({ actions: ['sqs:*'], resources: ['*'] }),
      { ...allow({ actions: ['sqs:DeleteMessage'], resources: ['*'] }), effect: 'Deny' as const },
    ];
    expect(statementsAllow(statements, { action: 'sqs:SendMessage', resource: null, arn: 'arn:q' })).toBe(
      true,
    );
    expect(statementsAllow(statements, { action: 'sqs:DeleteMessage', resource: null, arn: 'arn:q' })).toBe(
      false,
    );
  });

  it('holds a partition-scoped grant to its prefixes, and refuses a call without partition keys', () => {
    const statements = [
      allow({
        actions: ['dynamodb:UpdateItem'],
        resources: [TABLE],
        conditions: {
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['APIKEY#*', 'RATE#ip:*'] },
          Null: { 'dynamodb:LeadingKeys': ['false'] },
        },
      }),
    ];
    const update = (keys?: string[]) =>
      statementsAllow(statements, {
        action: 'dynamodb:UpdateItem',
        resource: null,
        arn: TABLE,
        ...(keys ? { context: { 'dynamodb:LeadingKeys': keys } } : {}),
      });
    expect(update(['APIKEY#abc'])).toBe(true);
    expect(update(['APIKEY#abc', 'RATE#ip:1.2.3.4'])).toBe(true);
    expect(update(['ACCOUNT#abc'])).toBe(false);
    expect(update(['APIKEY#abc', 'ACCOUNT#abc'])).toBe(false);
    expect(update()).toBe(false);
  });

  it('binds a key grant to its encryption context, and a PassRole to its service', () => {
    const statements = [
      allow({
        actions: ['kms:Decrypt'],
        resources: ['arn:aws:kms:us-east-1:000000000000:key/k'],
        conditions: { StringLike: { 'kms:EncryptionContext:channelId': ['ch_*'] } },
      }),
      allow({
        actions: ['iam:PassRole'],
        resources: ['arn:aws:iam::000000000000:role/scheduler'],
        conditions: { StringEquals: { 'iam:PassedToService': ['scheduler.amazonaws.com'] } },
      }),
    ];
    const decrypt = (channelId?: string) =>
      statementsAllow(statements, {
        action: 'kms:Decrypt',
        resource: null,
        arn: 'arn:aws:kms:us-east-1:000000000000:key/k',
        ...(channelId ? { context: { 'kms:EncryptionContext:channelId': channelId } } : {}),
      });
    expect(decrypt('ch_1')).toBe(true);
    expect(decrypt('wh_1')).toBe(false);
    expect(decrypt()).toBe(false);
    const pass = (service: string) =>
      statementsAllow(statements, {
        action: 'iam:PassRole',
        resource: null,
        arn: 'arn:aws:iam::000000000000:role/scheduler',
        context: { 'iam:PassedToService': service },
      });
    expect(pass('scheduler.amazonaws.com')).toBe(true);
    expect(pass('lambda.amazonaws.com')).toBe(false);
  });

  it('refuses to guess an operator it cannot evaluate', () => {
    const statements = [
      allow({
        actions: ['s3:GetObject'],
        resources: ['*'],
        conditions: { IpAddress: { 'aws:SourceIp': ['1.2.3.4'] } },
      }),
    ];
    expect(() =>
      statementsAllow(statements, { action: 's3:GetObject', resource: null, arn: 'arn:aws:s3:::b/k' }),
    ).toThrow(/IpAddress/);
  });
});

describe('template values resolve against the local engines', () => {
  const model: CloudAssemblyModel = {
    directory: '',
    stacks: new Map<string, StackTemplate>([
      [
        'Stateful',
        {
          name: 'Stateful',
          resources: { Table: { Type: 'AWS::DynamoDB::GlobalTable' } },
          exports: { 'Stateful:TableArn': { stack: 'Stateful', value: { 'Fn::GetAtt': ['Table', 'Arn'] } } },
        },
      ],
      ['Stateless', { name: 'Stateless', resources: {}, exports: {} }],
    ]),
    functions: new Map(),
    routes: [],
    eventSources: [],
    queues: [],
  };
  const physical = (resource: { logicalId: string }, attribute: string) =>
    attribute === 'Arn'
      ? `arn:aws:dynamodb:us-east-1:000000000000:table/local-${resource.logicalId}`
      : 'local';

  it('follows imports to the exporting stack, and joins, subs and pseudo parameters', () => {
    const imported = { 'Fn::ImportValue': 'Stateful:TableArn' };
    expect(resolveValue(model, 'Stateless', imported, physical)).toBe(
      'arn:aws:dynamodb:us-east-1:000000000000:table/local-Table',
    );
    expect(resolveValue(model, 'Stateless', { 'Fn::Join': ['', [imported, '/index/gsi1']] }, physical)).toBe(
      'arn:aws:dynamodb:us-east-1:000000000000:table/local-Table/index/gsi1',
    );
    expect(
      resolveValue(
        model,
        'Stateless',
        {
          'Fn::Sub': SECRETS_SUB,
        },
        physical,
      ),
    ).toBe('arn:aws:secretsmanager:us-east-1:000000000000:secret:herald-dev/*');
  });

  it('fails on an import no stack exports', () => {
    expect(() => resolveValue(model, 'Stateless', { 'Fn::ImportValue': 'Nowhere' }, physical)).toThrow(
      /Nowhere/,
    );
  });
});
