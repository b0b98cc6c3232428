/**
 * The local value of each resource of a rehearsed assembly (its `Ref` and attributes): names bound
 * from the functions' environment (the table, bucket, queues, key and role the runtime provides),
 * every other resource its logical id; ARNs in the local account and region; queue URLs on the
 * rehearsal's AWS endpoint.
 */
import { functionKey, type PhysicalValues, type ResourceRef } from './assembly.ts';

export const ACCOUNT = '000000000000';
export const REGION = 'us-east-1';

export const localPhysicalValues =
  (
    /** Local names by `<stack>/<logicalId>`. */
    names: ReadonlyMap<string, string>,
    local: { apiUrl: string; frontDoorUrl: () => string },
  ): PhysicalValues =>
  (resource: ResourceRef, attribute: string): string => {
    const name =
      names.get(functionKey(resource.stack, resource.logicalId)) ?? resource.logicalId.toLowerCase();
    const fail = () => {
      throw new Error(
        `The rehearsal has no local value for ${resource.type} ${resource.logicalId}.${attribute}`,
      );
    };
    switch (resource.type) {
      case 'AWS::DynamoDB::GlobalTable':
      case 'AWS::DynamoDB::Table':
        if (attribute === 'Ref') return name;
        if (attribute === 'Arn') return `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${name}`;
        return fail();
      case 'AWS::S3::Bucket':
        if (attribute === 'Ref') return name;
        if (attribute === 'Arn') return `arn:aws:s3:::${name}`;
        return fail();
      case 'AWS::SQS::Queue':
        if (attribute === 'Ref' || attribute === 'QueueUrl')
          return `${local.frontDoorUrl()}/${ACCOUNT}/${name}`;
        if (attribute === 'Arn') return `arn:aws:sqs:${REGION}:${ACCOUNT}:${name}`;
        if (attribute === 'QueueName') return name;
        return fail();
      case 'AWS::KMS::Key':
        if (attribute === 'Ref' || attribute === 'KeyId') return name;
        if (attribute === 'Arn') return `arn:aws:kms:${REGION}:${ACCOUNT}:key/${name}`;
        return fail();
      case 'AWS::IAM::Role':
        if (attribute === 'Ref') return name;
        if (attribute === 'Arn') return `arn:aws:iam::${ACCOUNT}:role/${name}`;
        return fail();
      case 'AWS::ApiGatewayV2::Api':
        if (attribute === 'ApiEndpoint') return local.apiUrl;
        if (attribute === 'Ref') return 'local';
        return fail();
      case 'AWS::Lambda::Function':
        if (attribute === 'Ref') return name;
        if (attribute === 'Arn') return `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${name}`;
        return fail();
      case 'AWS::Logs::LogGroup':
        if (attribute === 'Ref') return name;
        if (attribute === 'Arn') return `arn:aws:logs:${REGION}:${ACCOUNT}:log-group:${name}:*`;
        return fail();
      case 'AWS::Scheduler::ScheduleGroup':
        if (attribute === 'Ref') return name;
        if (attribute === 'Arn') return `arn:aws:scheduler:${REGION}:${ACCOUNT}:schedule-group/${name}`;
        return fail();
      // The user pool and its app client stand for the local Cognito emulator's (their ids as names).
      case 'AWS::Cognito::UserPool':
      case 'AWS::Cognito::UserPoolClient':
        if (attribute === 'Ref') return name;
        return fail();
      case 'AWS::SNS::Topic':
        if (attribute === 'Ref' || attribute === 'TopicArn')
          return `arn:aws:sns:${REGION}:${ACCOUNT}:${name}`;
        return fail();
      default:
        return fail();
    }
  };
