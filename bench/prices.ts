/**
 * AWS list prices, us-east-1: the one place the benches and the cost script (`npm run cost`) read
 * them. Each price names the page it was read from and the day it was read; free tiers are left out
 * everywhere. Update the number, the source and the date together when AWS changes a price.
 */
export interface Price {
  /** US dollars per `unit`. */
  readonly usd: number;
  readonly unit: string;
  readonly source: string;
  /** The day the price was read from `source` (YYYY-MM-DD). */
  readonly read: string;
}

const price = (usd: number, unit: string, source: string, read: string): Price => ({
  usd,
  unit,
  source,
  read,
});

const DYNAMODB = 'https://aws.amazon.com/dynamodb/pricing/on-demand/';
const LAMBDA = 'https://aws.amazon.com/lambda/pricing/';
const CLOUDWATCH = 'https://aws.amazon.com/cloudwatch/pricing/';
const COGNITO = 'https://aws.amazon.com/cognito/pricing/';

export const PRICE = {
  dynamoWrite: price(0.625, 'million write request units (on-demand)', DYNAMODB, '2026-11-25'),
  dynamoRead: price(0.125, 'million read request units (on-demand)', DYNAMODB, '2026-11-25'),
  dynamoStorage: price(0.25, 'GB-month of table storage', DYNAMODB, '2026-11-25'),
  dynamoPitr: price(0.2, 'GB-month of continuous backup (point-in-time recovery)', DYNAMODB, '2026-11-29'),
  lambdaRequests: price(0.2, 'million requests', LAMBDA, '2026-11-25'),
  lambdaArm: price(0.0000133334, 'GB-second (arm64)', LAMBDA, '2026-11-25'),
  lambdaX86: price(0.0000166667, 'GB-second (x86_64)', LAMBDA, '2026-11-29'),
  sqsRequests: price(
    0.4,
    'million requests (standard queue)',
    'https://aws.amazon.com/sqs/pricing/',
    '2026-11-25',
  ),
  schedulerInvocations: price(
    1.0,
    'million schedule invocations',
    'https://aws.amazon.com/eventbridge/pricing/',
    '2026-11-25',
  ),
  kmsRequests: price(3.0, 'million symmetric requests', 'https://aws.amazon.com/kms/pricing/', '2026-11-25'),
  kmsKey: price(
    1.0,
    'customer managed key-month (each of the first two rotations adds 1.00)',
    'https://aws.amazon.com/kms/pricing/',
    '2026-11-29',
  ),
  secret: price(0.4, 'secret-month', 'https://aws.amazon.com/secrets-manager/pricing/', '2026-11-29'),
  alarmMetric: price(0.1, 'standard-resolution alarm metric-month', CLOUDWATCH, '2026-11-29'),
  highResolutionAlarmMetric: price(0.3, 'high-resolution alarm metric-month', CLOUDWATCH, '2026-11-29'),
  dashboard: price(3.0, 'dashboard-month (an account’s first 3 are free)', CLOUDWATCH, '2026-11-29'),
  logsIngestion: price(0.5, 'GB of logs ingested (standard class)', CLOUDWATCH, '2026-11-29'),
  logsStorage: price(0.03, 'GB-month of logs stored', CLOUDWATCH, '2026-11-29'),
  httpApiRequests: price(
    1.0,
    'million HTTP API requests (first 300 million a month)',
    'https://aws.amazon.com/api-gateway/pricing/',
    '2026-11-25',
  ),
  cognitoLite: price(0.0055, 'monthly active user, Lite plan (above 10,000)', COGNITO, '2026-11-29'),
  cognitoEssentials: price(
    0.015,
    'monthly active user, Essentials plan (above 10,000)',
    COGNITO,
    '2026-11-29',
  ),
  cognitoPlus: price(0.02, 'monthly active user, Plus plan (no free tier)', COGNITO, '2026-11-29'),
  s3Storage: price(
    0.023,
    'GB-month, S3 Standard (first 50 TB)',
    'https://aws.amazon.com/s3/pricing/',
    '2026-11-29',
  ),
  cloudFrontRequests: price(
    1.0,
    'million HTTPS requests (United States, Canada, Europe)',
    'https://aws.amazon.com/cloudfront/pricing/',
    '2026-11-29',
  ),
  xrayTraces: price(5.0, 'million traces recorded', 'https://aws.amazon.com/xray/pricing/', '2026-11-29'),
  snsPublishes: price(0.5, 'million publishes', 'https://aws.amazon.com/sns/pricing/', '2026-11-29'),
} as const satisfies Record<string, Price>;

/** The prices the benches print, by their older names (the same numbers as `PRICE`). */
export const PRICES = {
  date: [
    PRICE.dynamoWrite,
    PRICE.dynamoRead,
    PRICE.lambdaRequests,
    PRICE.lambdaArm,
    PRICE.sqsRequests,
    PRICE.schedulerInvocations,
    PRICE.kmsRequests,
  ]
    .map((p) => p.read)
    .sort()
    .at(-1) as string,
  dynamoWritePerMillion: PRICE.dynamoWrite.usd,
  dynamoReadPerMillion: PRICE.dynamoRead.usd,
  dynamoStoragePerGbMonth: PRICE.dynamoStorage.usd,
  lambdaPerMillionRequests: PRICE.lambdaRequests.usd,
  lambdaArmPerGbSecond: PRICE.lambdaArm.usd,
  sqsPerMillionRequests: PRICE.sqsRequests.usd,
  schedulerPerMillionInvocations: PRICE.schedulerInvocations.usd,
  /** KMS symmetric requests ($0.03 per 10,000). */
  kmsPerMillionRequests: PRICE.kmsRequests.usd,
};
