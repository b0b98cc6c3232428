import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { STATEFUL_OUTPUTS, STATELESS_OUTPUTS } from '../../lib/stack-outputs.ts';
import { buildTestApp, logicalIdOf } from './fixture.ts';

const { stateful, stateless } = buildTestApp();
const statefulTemplate = Template.fromStack(stateful).toJSON();
const statelessTemplate = Template.fromStack(stateless).toJSON();

interface Output {
  Value: unknown;
  Description?: string;
  Export?: unknown;
}
/** The outputs an operator reads: every output but CDK's own cross-stack exports. */
const named = (template: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(template.Outputs as Record<string, Output>).filter(([key]) => !key.startsWith('Export')),
  );
const statefulOutputs = named(statefulTemplate);
const statelessOutputs = named(statelessTemplate);

const ref = (construct: Parameters<typeof logicalIdOf>[1]) => ({ Ref: logicalIdOf(stateful, construct) });
const arn = (construct: Parameters<typeof logicalIdOf>[1]) => ({
  'Fn::GetAtt': [logicalIdOf(stateful, construct), 'Arn'],
});

describe('named outputs', () => {
  it('the stateful stack outputs exactly the values an operator needs, each described and none exported', () => {
    expect(Object.keys(statefulOutputs).sort()).toEqual(Object.keys(STATEFUL_OUTPUTS).sort());
    expect(Object.keys(statefulOutputs).sort()).toEqual(
      [
        'TableName',
        'TokenKeyArn',
        'TokenKeyId',
        'TokenKeyAlias',
        'MediaBucketName',
        'AccessLogsBucketName',
        ...['Publish', 'Event', 'Delivery', 'Metrics'].flatMap((q) => [
          `${q}QueueUrl`,
          `${q}DlqUrl`,
          `${q}DlqArn`,
        ]),
        'ScheduleGroupName',
        'SchedulerRoleArn',
        'AppSecretPrefix',
        'UserPoolId',
        'UserPoolClientId',
        'UserPoolIssuer',
      ].sort(),
    );
    for (const [key, output] of Object.entries(statefulOutputs)) {
      expect({ key, description: output.Description }).toEqual({
        key,
        description: STATEFUL_OUTPUTS[key as keyof typeof STATEFUL_OUTPUTS],
      });
      expect({ key, exported: output.Export }).toEqual({ key, exported: undefined });
    }
  });

  it('each stateful output holds the value of the resource it names', () => {
    const { queues } = stateful;
    expect(statefulOutputs.TableName?.Value).toEqual(ref(stateful.table));
    expect(statefulOutputs.TokenKeyArn?.Value).toEqual(arn(stateful.tokenKey));
    expect(statefulOutputs.TokenKeyId?.Value).toEqual(ref(stateful.tokenKey));
    // A Ref of the alias (cdk.json's @aws-cdk/aws-kms:aliasNameRef), which CloudFormation resolves to its name.
    const alias = stateful.node.findChild('TokenAlias');
    expect(statefulOutputs.TokenKeyAlias?.Value).toEqual(ref(alias));
    expect(
      (statefulTemplate.Resources as Record<string, { Properties: { AliasName: string } }>)[
        logicalIdOf(stateful, alias)
      ]?.Properties.AliasName,
    ).toBe('alias/herald-dev-tokens');
    expect(statefulOutputs.MediaBucketName?.Value).toEqual(ref(stateful.mediaBucket));
    const logs = stateful.node.findChild('MediaStorage').node.findChild('AccessLogs');
    expect(statefulOutputs.AccessLogsBucketName?.Value).toEqual(ref(logs));
    for (const [name, key] of [
      ['publish', 'Publish'],
      ['event', 'Event'],
      ['delivery', 'Delivery'],
      ['metrics', 'Metrics'],
    ] as const) {
      expect(statefulOutputs[`${key}QueueUrl`]?.Value).toEqual(ref(queues[name].queue));
      expect(statefulOutputs[`${key}DlqUrl`]?.Value).toEqual(ref(queues[name].deadLetterQueue));
      expect(statefulOutputs[`${key}DlqArn`]?.Value).toEqual(arn(queues[name].deadLetterQueue));
    }
    expect(statefulOutputs.ScheduleGroupName?.Value).toBe('herald-dev');
    expect(statefulOutputs.SchedulerRoleArn?.Value).toEqual(arn(stateful.schedulerRole));
    expect(statefulOutputs.AppSecretPrefix?.Value).toBe('herald-dev/network-app/');
    expect(statefulOutputs.UserPoolId?.Value).toEqual(ref(stateful.users.userPool));
    expect(statefulOutputs.UserPoolClientId?.Value).toEqual(ref(stateful.users.client));
    expect(statefulOutputs.UserPoolIssuer?.Value).toEqual({
      'Fn::Join': [
        '',
        ['https://cognito-idp.', { Ref: 'AWS::Region' }, '.amazonaws.com/', ref(stateful.users.userPool)],
      ],
    });
  });

  it('the stateless stack outputs the API URL and the alarm topic, described and not exported', () => {
    expect(Object.keys(statelessOutputs).sort()).toEqual(Object.keys(STATELESS_OUTPUTS).sort());
    expect(statelessOutputs.ApiUrl).toEqual({
      Description: STATELESS_OUTPUTS.ApiUrl,
      Value: {
        'Fn::Join': [
          '',
          [
            'https://',
            { Ref: logicalIdOf(stateless, stateless.httpApi.api) },
            '.execute-api.',
            { Ref: 'AWS::Region' },
            '.',
            { Ref: 'AWS::URLSuffix' },
            '/',
          ],
        ],
      },
    });
    expect(statelessOutputs.AlarmTopicArn).toEqual({
      Description: STATELESS_OUTPUTS.AlarmTopicArn,
      Value: { Ref: logicalIdOf(stateless, stateless.alarms.topic) },
    });
  });
});
