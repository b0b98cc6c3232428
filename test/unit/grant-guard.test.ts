import { Readable } from 'node:stream';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import {
  DynamoDBDocumentClient,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../functions/adapters/aws/dynamo/keys.ts';
import {
  currentFunction,
  type FunctionIdentity,
  guardMediaUrl,
  guardScheduler,
  guardTokenCipher,
  installGrantGuard,
  type ResourceNames,
  runAsFunction,
  sdkAccessRequests,
} from '../../functions/adapters/local/grant-guard.ts';
import { grantUsage } from '../../functions/adapters/local/grant-usage.ts';
import {
  fallbackGrants,
  healthRoute,
  publicRoutes,
  routes,
  userRoutes,
} from '../../functions/http/routes.ts';
import type { MediaRecord } from '../../functions/ports/media.ts';
import type { Scheduler } from '../../functions/ports/scheduler.ts';
import type { TokenCipher } from '../../functions/ports/token-cipher.ts';
import { ENV } from '../../functions/shared/env.ts';
import { type Grant, grantsAllowing, PARTITIONS } from '../../functions/shared/grants.ts';
import { workers } from '../../functions/workers/manifest.ts';

const names: ResourceNames = {
  region: 'us-east-1',
  account: '000000000000',
  tableName: 'herald',
  indexNames: ['GSI1', 'GSI2'],
  mediaBucket: 'media',
  queueUrls: {
    publishQueue: 'http://sqs.local/000000000000/herald-publish',
    eventQueue: 'http://sqs.local/000000000000/herald-event',
    deliveryQueue: 'http://sqs.local/000000000000/herald-delivery',
  },
  tokenKeyId: 'token-key',
  scheduleGroup: 'herald',
  schedulerRoleArn: 'arn:aws:iam::000000000000:role/scheduler',
};

/** The grants that would allow each request of one SDK command, given the function's grants. */
const allowedBy = (grants: Grant[], client: string, command: string, input: Record<string, unknown>) =>
  sdkAccessRequests(client, command, input, names).requests.map((request) => ({
    action: request.action,
    resource: request.resource,
    grants: grantsAllowing(grants, request),
  }));

describe('the mapping from SDK commands to IAM actions and grants', () => {
  const all: Grant[] = [
    'table:read',
    'table:write',
    'bucket:read',
    'bucket:write',
    'publishQueue:send',
    'eventQueue:send',
    'deliveryQueue:send',
    'scheduler:manage',
    'channelToken:encrypt',
    'channelToken:decrypt',
    'connectGrant:encrypt',
    'connectGrant:decrypt',
    'webhookSecret:encrypt',
    'webhookSecret:decrypt',
  ];

  it('DynamoDB: item writes need table:write, reads and index queries need table:read', () => {
    expect(allowedBy(all, 'DynamoDBClient', 'PutItemCommand', { TableName: 'herald' })).toEqual([
      { action: 'dynamodb:PutItem', resource: 'table', grants: ['table:write'] },
    ]);
    expect(
      allowedBy(all, 'DynamoDBClient', 'QueryCommand', { TableName: 'herald', IndexName: 'GSI1' }),
    ).toEqual([{ action: 'dynamodb:Query', resource: 'tableIndexes', grants: ['table:read'] }]);
    // table:write covers the table only, never its indexes; an index the stack does not name is nobody's.
    expect(
      allowedBy(['table:write'], 'DynamoDBClient', 'QueryCommand', {
        TableName: 'herald',
        IndexName: 'GSI1',
      })[0]?.grants,
    ).toEqual([]);
    expect(
      allowedBy(all, 'DynamoDBClient', 'QueryCommand', { TableName: 'herald', IndexName: 'GSI9' })[0]?.grants,
    ).toEqual([]);
    expect(allowedBy(all, 'DynamoDBClient', 'GetItemCommand', { TableName: 'other' })[0]?.grants).toEqual([]);
    // Nothing in any grant manages the table itself.
    expect(
      allowedBy(all, 'DynamoDBClient', 'DeleteTableCommand', { TableName: 'herald' })[0]?.grants,
    ).toEqual([]);
  });

  it('DynamoDB transactions and batches are checked item by item, as IAM does', () => {
    const transaction = {
      TransactItems: [
        { Put: { TableName: 'herald' } },
        { Update: { TableName: 'herald' } },
        { Delete: { TableName: 'herald' } },
        { ConditionCheck: { TableName: 'herald' } },
      ],
    };
    expect(allowedBy(all, 'DynamoDBClient', 'TransactWriteItemsCommand', transaction)).toEqual([
      { action: 'dynamodb:PutItem', resource: 'table', grants: ['table:write'] },
      { action: 'dynamodb:UpdateItem', resource: 'table', grants: ['table:write'] },
      { action: 'dynamodb:DeleteItem', resource: 'table', grants: ['table:write'] },
      // A condition check is a read: a write-only function cannot run this transaction.
      { action: 'dynamodb:ConditionCheckItem', resource: 'table', grants: ['table:read'] },
    ]);
    expect(
      allowedBy(all, 'DynamoDBClient', 'BatchGetItemCommand', { RequestItems: { herald: {}, other: {} } }),
    ).toEqual([
      { action: 'dynamodb:BatchGetItem', resource: 'table', grants: ['table:read'] },
      { action: 'dynamodb:BatchGetItem', resource: null, grants: [] },
    ]);
  });

  it('S3: reads (HEAD too) need bucket:read, writes and multipart need bucket:write, listing bucket:list', () => {
    expect(allowedBy(all, 'S3Client', 'HeadObjectCommand', { Bucket: 'media', Key: 'a' })).toEqual([
      { action: 's3:GetObject', resource: 'mediaObjects', grants: ['bucket:read'] },
    ]);
    for (const command of ['PutObject', 'CreateMultipartUpload', 'UploadPart', 'CompleteMultipartUpload']) {
      expect(
        allowedBy(all, 'S3Client', `${command}Command`, { Bucket: 'media', Key: 'a' })[0]?.grants,
      ).toEqual(['bucket:write']);
    }
    expect(
      allowedBy(all, 'S3Client', 'AbortMultipartUploadCommand', { Bucket: 'media', Key: 'a' })[0],
    ).toMatchObject({ action: 's3:AbortMultipartUpload', grants: ['bucket:write'] });
    // A copy writes its target and reads its source.
    expect(
      allowedBy(all, 'S3Client', 'CopyObjectCommand', {
        Bucket: 'media',
        Key: 'b',
        CopySource: 'media/up%2Fa',
      }),
    ).toEqual([
      { action: 's3:PutObject', resource: 'mediaObjects', grants: ['bucket:write'] },
      { action: 's3:GetObject', resource: 'mediaObjects', grants: ['bucket:read'] },
    ]);
    expect(
      allowedBy(all, 'S3Client', 'DeleteObjectsCommand', {
        Bucket: 'media',
        Delete: { Objects: [{ Key: 'a' }, { Key: 'b' }] },
      }).map((r) => r.action),
    ).toEqual(['s3:DeleteObject', 's3:DeleteObject']);
    expect(allowedBy(all, 'S3Client', 'ListObjectsV2Command', { Bucket: 'media' })).toEqual([
      { action: 's3:ListBucket', resource: 'mediaBucket', grants: [] },
    ]);
    expect(
      allowedBy(['bucket:list'], 'S3Client', 'ListObjectsV2Command', { Bucket: 'media' })[0]?.grants,
    ).toEqual(['bucket:list']);
    // Listing is a bucket action: it never reaches the objects.
    expect(
      allowedBy(['bucket:list'], 'S3Client', 'GetObjectCommand', { Bucket: 'media', Key: 'a' })[0]?.grants,
    ).toEqual([]);
    expect(allowedBy(all, 'S3Client', 'ListPartsCommand', { Bucket: 'media', Key: 'a' })[0]?.grants).toEqual(
      [],
    );
    expect(
      allowedBy(all, 'S3Client', 'GetObjectCommand', { Bucket: 'elsewhere', Key: 'a' })[0]?.grants,
    ).toEqual([]);
  });

  it('SQS: a send (batch too) needs the grant of the queue it names', () => {
    expect(
      allowedBy(all, 'SQSClient', 'SendMessageBatchCommand', { QueueUrl: names.queueUrls.deliveryQueue }),
    ).toEqual([{ action: 'sqs:SendMessage', resource: 'deliveryQueue', grants: ['deliveryQueue:send'] }]);
    expect(
      allowedBy(all, 'SQSClient', 'SendMessageCommand', { QueueUrl: names.queueUrls.publishQueue })[0]
        ?.grants,
    ).toEqual(['publishQueue:send']);
    expect(
      allowedBy(all, 'SQSClient', 'SendMessageCommand', { QueueUrl: 'http://sqs.local/0/herald-metrics' })[0]
        ?.grants,
    ).toEqual([]);
    // Consuming is the event source mapping's, never a function's grant.
    expect(
      allowedBy(all, 'SQSClient', 'ReceiveMessageCommand', { QueueUrl: names.queueUrls.publishQueue })[0]
        ?.grants,
    ).toEqual([]);
  });

  it('KMS: each grant of the token key opens or seals its own kind of value only, told by the encryption context', () => {
    const call = (command: string, channelId?: string) =>
      allowedBy(all, 'KMSClient', command, {
        KeyId: 'token-key',
        ...(channelId === undefined ? {} : { EncryptionContext: { channelId } }),
      })[0]?.grants;
    expect(call('DecryptCommand', 'wh_1')).toEqual(['webhookSecret:decrypt']);
    expect(call('DecryptCommand', 'ch_1')).toEqual(['channelToken:decrypt']);
    expect(call('DecryptCommand', 'connect_ab12')).toEqual(['connectGrant:decrypt']);
    expect(call('EncryptCommand', 'wh_1')).toEqual(['webhookSecret:encrypt']);
    expect(call('EncryptCommand', 'ch_1')).toEqual(['channelToken:encrypt']);
    expect(call('EncryptCommand', 'connect_ab12')).toEqual(['connectGrant:encrypt']);
    // Without a context, or with one of no kind of ours, nothing opens or seals.
    expect(call('DecryptCommand')).toEqual([]);
    expect(call('EncryptCommand')).toEqual([]);
    expect(call('DecryptCommand', 'post_1')).toEqual([]);
    expect(call('DecryptCommand', 'xch_1')).toEqual([]);
  });

  it('Scheduler: a schedule of our group, and passing the scheduler role, need scheduler:manage', () => {
    expect(
      allowedBy(all, 'SchedulerClient', 'CreateScheduleCommand', {
        Name: 'post_1',
        GroupName: 'herald',
        Target: { RoleArn: names.schedulerRoleArn },
      }),
    ).toEqual([
      { action: 'scheduler:CreateSchedule', resource: 'schedules', grants: ['scheduler:manage'] },
      { action: 'iam:PassRole', resource: 'schedulerRole', grants: ['scheduler:manage'] },
    ]);
    expect(
      allowedBy(all, 'SchedulerClient', 'DeleteScheduleCommand', { Name: 'post_1', GroupName: 'default' })[0]
        ?.grants,
    ).toEqual([]);
  });
});

type AwsError = Error & { $metadata: { httpStatusCode: number }; $fault: string };
/** The error a call was refused with (a call that went through fails the test). */
const refusal = (call: Promise<unknown>): Promise<AwsError> =>
  call.then(
    () => {
      throw new Error('the call was not refused');
    },
    (error: unknown) => error as AwsError,
  );

const fn = (grants: Grant[]): FunctionIdentity => ({
  id: `TEST ${grants.join(',') || 'nothing'}`,
  name: 'http-posts-create',
  grants,
});

describe('the guard on real SDK clients', () => {
  const set = {
    [ENV.tableName]: 'herald',
    [ENV.mediaBucket]: 'media',
    [ENV.publishQueueUrl]: names.queueUrls.publishQueue,
    [ENV.eventQueueUrl]: names.queueUrls.eventQueue,
    [ENV.deliveryQueueUrl]: names.queueUrls.deliveryQueue,
  };
  const saved = Object.fromEntries(Object.keys(set).map((name) => [name, process.env[name]]));
  beforeAll(() => {
    Object.assign(process.env, set);
  });
  // Restored name by name (process.env stays the process's own object: the unit project shares a
  // worker between files).
  afterAll(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  const credentials = { accessKeyId: 'a', secretAccessKey: 'b' };
  /** A DynamoDB client that answers every request with `{}` and counts what reached it. */
  const dynamo = () => {
    const sent: string[] = [];
    const client = new DynamoDBClient({
      region: 'us-east-1',
      credentials,
      endpoint: 'http://dynamo.invalid',
      maxAttempts: 1,
      requestHandler: {
        handle: async (request: { headers: Record<string, string> }) => {
          sent.push(request.headers['x-amz-target'] ?? '');
          return {
            response: { statusCode: 200, headers: {}, body: Readable.from([Buffer.from('{}')]) },
          };
        },
      } as never,
    });
    installGrantGuard(client);
    return { doc: DynamoDBDocumentClient.from(client), sent };
  };

  it('refuses, before anything is sent, with DynamoDB’s AccessDeniedException', async () => {
    const { doc, sent } = dynamo();
    const error = await refusal(
      runAsFunction(fn(['table:read']), () =>
        doc.send(new PutCommand({ TableName: 'herald', Item: { PK: 'a', SK: 'b' } })),
      ),
    );
    expect(error).toMatchObject({
      name: 'AccessDeniedException',
      $fault: 'client',
      $metadata: { httpStatusCode: 400 },
    });
    expect(error.message).toBe(
      'User: arn:aws:sts::000000000000:assumed-role/http-posts-create-role/http-posts-create is not authorized ' +
        'to perform: dynamodb:PutItem on resource: arn:aws:dynamodb:us-east-1:000000000000:table/herald ' +
        'because no identity-based policy allows the dynamodb:PutItem action',
    );
    expect(sent).toEqual([]);
  });

  it('lets through what the grants allow, and records which grant was used', async () => {
    const { doc, sent } = dynamo();
    const identity = fn(['table:read', 'table:write', 'bucket:read']);
    await runAsFunction(identity, async () => {
      await doc.send(new PutCommand({ TableName: 'herald', Item: { PK: 'a', SK: 'b' } }));
      await doc.send(
        new QueryCommand({ TableName: 'herald', IndexName: 'GSI1', KeyConditionExpression: 'x' }),
      );
    });
    expect(sent).toEqual(['DynamoDB_20120810.PutItem', 'DynamoDB_20120810.Query']);
    expect([...(grantUsage().get(identity.id) ?? [])].sort()).toEqual(['table:read', 'table:write']);
  });

  it('refuses a transaction when one item is not allowed (a condition check needs table:read)', async () => {
    const { doc, sent } = dynamo();
    const error = await refusal(
      runAsFunction(fn(['table:write']), () =>
        doc.send(
          new TransactWriteCommand({
            TransactItems: [
              { Put: { TableName: 'herald', Item: { PK: 'a', SK: 'b' } } },
              {
                ConditionCheck: { TableName: 'herald', Key: { PK: 'c', SK: 'd' }, ConditionExpression: 'x' },
              },
            ],
          }),
        ),
      ),
    );
    expect(error.message).toContain('dynamodb:ConditionCheckItem');
    expect(sent).toEqual([]);
  });

  it('does not check what runs outside any function (pollers, seeding, tests)', async () => {
    const { doc, sent } = dynamo();
    await doc.send(new PutCommand({ TableName: 'herald', Item: { PK: 'a', SK: 'b' } }));
    expect(sent).toHaveLength(1);
  });

  it('checks presigned URLs: signing a GET needs bucket:read, signing a PUT bucket:write (S3’s AccessDenied)', async () => {
    const s3 = new S3Client({ region: 'us-east-1', credentials });
    installGrantGuard(s3);
    const get = new GetObjectCommand({ Bucket: 'media', Key: 'ws/med_1' });
    const refused = await refusal(runAsFunction(fn(['bucket:write']), () => getSignedUrl(s3, get)));
    expect(refused).toMatchObject({ name: 'AccessDenied', $metadata: { httpStatusCode: 403 } });
    expect(refused.message).toContain(
      'is not authorized to perform: s3:GetObject on resource: "arn:aws:s3:::media/ws/med_1"',
    );
    const url = await runAsFunction(fn(['bucket:read']), () =>
      getSignedUrl(s3, new GetObjectCommand({ Bucket: 'media', Key: 'ws/med_1' })),
    );
    expect(url).toContain('X-Amz-Signature=');
    await expect(
      runAsFunction(fn(['bucket:read']), () =>
        getSignedUrl(s3, new PutObjectCommand({ Bucket: 'media', Key: 'ws/med_1' })),
      ),
    ).rejects.toThrow('s3:PutObject');
  });

  it('answers a HEAD of a missing object with 403 Forbidden, as S3 does, unless the function may list the bucket', async () => {
    const s3 = new S3Client({
      region: 'us-east-1',
      credentials,
      endpoint: 'http://s3.invalid',
      forcePathStyle: true,
      maxAttempts: 1,
      requestHandler: {
        handle: async () => ({ response: { statusCode: 404, headers: {}, body: Readable.from([]) } }),
      } as never,
    });
    installGrantGuard(s3);
    const head = () => s3.send(new HeadObjectCommand({ Bucket: 'media', Key: 'uploads/missing' }));
    expect(await refusal(runAsFunction(fn(['bucket:read']), head))).toMatchObject({
      name: 'Forbidden',
      $metadata: { httpStatusCode: 403 },
    });
    const lister = fn(['bucket:read', 'bucket:list']);
    expect(await refusal(runAsFunction(lister, head))).toMatchObject({
      name: 'NotFound',
      $metadata: { httpStatusCode: 404 },
    });
    // The 404 is what bucket:list is for: the usage report counts it as used.
    expect(grantUsage().get(lister.id)?.has('bucket:list')).toBe(true);
    // Outside any function (the local runtime itself, tests) S3's own answer stands.
    expect(await refusal(head())).toMatchObject({ name: 'NotFound' });
  });

  it('refuses a send to a queue the function has no grant for, in SQS’s words', async () => {
    const sqs = new SQSClient({
      region: 'us-east-1',
      credentials,
      endpoint: 'http://sqs.invalid',
      maxAttempts: 1,
    });
    installGrantGuard(sqs);
    const error = await refusal(
      runAsFunction(fn(['eventQueue:send']), () =>
        sqs.send(
          new SendMessageBatchCommand({
            QueueUrl: names.queueUrls.deliveryQueue,
            Entries: [{ Id: '1', MessageBody: '{}' }],
          }),
        ),
      ),
    );
    expect(error).toMatchObject({ name: 'AccessDenied', $metadata: { httpStatusCode: 403 } });
    expect(error.message).toContain(
      'sqs:sendmessage on resource: arn:aws:sqs:us-east-1:000000000000:herald-delivery',
    );
  });
});

describe('the guard on the local stand-ins', () => {
  const calls: string[] = [];
  const cipher: TokenCipher = {
    encrypt: async (plaintext) => {
      calls.push('encrypt');
      return `sealed:${plaintext}`;
    },
    decrypt: async (ciphertext) => {
      calls.push('decrypt');
      return ciphertext.replace('sealed:', '');
    },
  };

  it('checks the local token cipher as the KMS calls it stands for', async () => {
    const guarded = guardTokenCipher(cipher);
    calls.length = 0;
    await expect(
      runAsFunction(fn(['webhookSecret:encrypt']), () => guarded.decrypt('sealed:x', { channelId: 'wh_1' })),
    ).rejects.toMatchObject({
      name: 'AccessDeniedException',
      message: expect.stringContaining('kms:Decrypt'),
    });
    expect(
      await runAsFunction(fn(['webhookSecret:decrypt']), () =>
        guarded.decrypt('sealed:x', { channelId: 'wh_1' }),
      ),
    ).toBe('x');
    await expect(
      runAsFunction(fn(['webhookSecret:decrypt']), () => guarded.decrypt('sealed:x', { channelId: 'ch_1' })),
    ).rejects.toMatchObject({ name: 'AccessDeniedException' });
    expect(calls).toEqual(['decrypt']);
  });

  it("checks the media bucket's presigned GETs (made without an S3 client) as the GetObject they stand for", async () => {
    const signed: string[] = [];
    const guarded = guardMediaUrl(async (record) => {
      signed.push(record.objectKey);
      return `https://example.test/${record.objectKey}`;
    });
    const record = { objectKey: 'media/acct_1/med_1/a.png' } as MediaRecord;
    await expect(
      runAsFunction(fn(['bucket:write', 'table:read']), () => guarded(record)),
    ).rejects.toMatchObject({
      name: 'AccessDenied',
      $metadata: { httpStatusCode: 403 },
      message: expect.stringContaining('s3:GetObject'),
    });
    expect(signed).toEqual([]);
    expect(await runAsFunction(fn(['bucket:read']), () => guarded(record))).toBe(
      'https://example.test/media/acct_1/med_1/a.png',
    );
    expect(signed).toEqual(['media/acct_1/med_1/a.png']);
  });

  it('checks the local scheduler as EventBridge Scheduler, and runs its own storage outside the function', async () => {
    const seen: (FunctionIdentity | null)[] = [];
    const scheduler: Scheduler = {
      scheduleOnce: async () => {
        seen.push(currentFunction());
      },
      cancel: async () => {
        seen.push(currentFunction());
      },
    };
    const guarded = guardScheduler(scheduler);
    await expect(
      runAsFunction(fn(['table:write']), () => guarded.scheduleOnce('post_1', new Date(), {})),
    ).rejects.toMatchObject({
      name: 'AccessDeniedException',
      $metadata: { httpStatusCode: 403 },
      message: expect.stringContaining('scheduler:CreateSchedule on resource: arn:aws:scheduler:'),
    });
    await expect(runAsFunction(fn([]), () => guarded.cancel('post_1'))).rejects.toThrow(
      'scheduler:DeleteSchedule',
    );
    expect(seen).toEqual([]);
    await runAsFunction(fn(['scheduler:manage']), async () => {
      await guarded.scheduleOnce('post_1', new Date(), {});
      await guarded.cancel('post_1');
    });
    expect(seen).toEqual([null, null]);
  });
});

describe('the manifest’s grants, scoped by encryption context and partition key', () => {
  const routeGrants = (key: string): Grant[] => {
    const route = [...routes, ...userRoutes, ...publicRoutes, healthRoute].find(
      (r) => `${r.method} ${r.path}` === key,
    );
    if (!route) throw new Error(`no route ${key}`);
    return route.grants;
  };
  const workerGrants = (queue: string): Grant[] => {
    const worker = workers.find((w) => w.queue === queue);
    if (!worker) throw new Error(`no ${queue} worker`);
    return worker.grants;
  };
  const everyFunction: { id: string; grants: Grant[] }[] = [
    ...[...routes, ...userRoutes].map((r) => ({ id: `${r.method} ${r.path}`, grants: r.grants })),
    { id: '$default', grants: fallbackGrants },
    ...workers.map((w) => ({ id: w.entry, grants: w.grants })),
  ];
  /** Which kinds of sealed values (channel token, connect grant, webhook secret) `grants` may open or seal. */
  const sealed = { channel: 'ch_1', connect: 'connect_ab12', webhook: 'wh_1' } as const;
  const kinds = (grants: Grant[], command: 'DecryptCommand' | 'EncryptCommand') =>
    Object.entries(sealed)
      .filter(
        ([, channelId]) =>
          (allowedBy(grants, 'KMSClient', command, {
            KeyId: 'token-key',
            EncryptionContext: { channelId },
          })[0]?.grants.length ?? 0) > 0,
      )
      .map(([kind]) => kind);

  it('no function opens more than one kind of sealed value with the token key', () => {
    const opening = everyFunction
      .map(({ id, grants }) => ({ id, opens: kinds(grants, 'DecryptCommand') }))
      .filter(({ opens }) => opens.length > 0);
    expect(opening.length).toBeGreaterThan(4);
    for (const { id, opens } of opening) expect(opens, id).toHaveLength(1);
    expect(kinds(workerGrants('publish'), 'DecryptCommand')).toEqual(['channel']);
    expect(kinds(workerGrants('metrics'), 'DecryptCommand')).toEqual(['channel']);
    expect(kinds(workerGrants('delivery'), 'DecryptCommand')).toEqual(['webhook']);
    expect(kinds(routeGrants('POST /v1/webhooks'), 'DecryptCommand')).toEqual(['webhook']);
    // The dashboard's "show secret" opens webhook secrets, and only them.
    expect(
      kinds(routeGrants('GET /v1/account/workspaces/{workspaceId}/webhooks/{id}/secret'), 'DecryptCommand'),
    ).toEqual(['webhook']);
    expect(kinds(routeGrants('POST /v1/channels/connect/{state}/targets'), 'DecryptCommand')).toEqual([
      'connect',
    ]);
    // A key-less function opens nothing.
    expect(kinds(routeGrants('GET /v1/channels/callback'), 'DecryptCommand')).toEqual([]);
    expect(kinds(fallbackGrants, 'DecryptCommand')).toEqual([]);
  });

  it('each function seals only the kinds it makes', () => {
    expect(kinds(routeGrants('POST /v1/webhooks'), 'EncryptCommand')).toEqual(['webhook']);
    expect(kinds(routeGrants('POST /v1/webhooks/{id}/roll-secret'), 'EncryptCommand')).toEqual(['webhook']);
    expect(kinds(routeGrants('POST /v1/channels'), 'EncryptCommand')).toEqual(['channel']);
    expect(kinds(workerGrants('publish'), 'EncryptCommand')).toEqual(['channel']);
    expect(kinds(routeGrants('POST /v1/channels/connect/{state}/targets'), 'EncryptCommand')).toEqual([
      'channel',
    ]);
    // Without a context the key seals or opens nothing for anyone.
    for (const { id, grants } of everyFunction) {
      for (const command of ['DecryptCommand', 'EncryptCommand']) {
        expect(allowedBy(grants, 'KMSClient', command, { KeyId: 'token-key' })[0]?.grants, id).toEqual([]);
      }
    }
  });

  it('the local token cipher refuses the publish worker a webhook secret and the delivery worker a channel token', async () => {
    const cipher: TokenCipher = {
      encrypt: async (plaintext) => `sealed:${plaintext}`,
      decrypt: async (ciphertext) => ciphertext.replace('sealed:', ''),
    };
    const guarded = guardTokenCipher(cipher);
    const publish = { id: 'publish worker', name: 'worker-publish', grants: workerGrants('publish') };
    const delivery = { id: 'delivery worker', name: 'worker-delivery', grants: workerGrants('delivery') };
    expect(await runAsFunction(publish, () => guarded.decrypt('sealed:t', { channelId: 'ch_1' }))).toBe('t');
    await expect(
      runAsFunction(publish, () => guarded.decrypt('sealed:s', { channelId: 'wh_1' })),
    ).rejects.toMatchObject({
      name: 'AccessDeniedException',
      message: expect.stringContaining('kms:Decrypt'),
    });
    expect(await runAsFunction(delivery, () => guarded.decrypt('sealed:s', { channelId: 'wh_1' }))).toBe('s');
    await expect(
      runAsFunction(delivery, () => guarded.decrypt('sealed:t', { channelId: 'ch_1' })),
    ).rejects.toMatchObject({ name: 'AccessDeniedException' });
    // The callback seals a grant for a connect state, never opens one.
    const callback = {
      id: 'callback',
      name: 'http-channels-callback',
      grants: routeGrants('GET /v1/channels/callback'),
    };
    expect(await runAsFunction(callback, () => guarded.encrypt('g', { channelId: 'connect_ab12' }))).toBe(
      'sealed:g',
    );
    await expect(
      runAsFunction(callback, () => guarded.decrypt('sealed:g', { channelId: 'connect_ab12' })),
    ).rejects.toMatchObject({ name: 'AccessDeniedException' });
  });

  /** Whether `grants` allow one single-item call on the item of partition key `pk`. */
  const itemCall = (grants: Grant[], command: string, pk: string) =>
    allowedBy(grants, 'DynamoDBClient', command, { TableName: 'herald', Key: { PK: pk, SK: 'x' } })[0]?.grants
      .length !== 0;

  it('the fallback counts requests on key and address-window items, and touches nothing else', () => {
    expect(itemCall(fallbackGrants, 'UpdateItemCommand', 'APIKEY#abc')).toBe(true);
    expect(itemCall(fallbackGrants, 'UpdateItemCommand', 'RATE#ip:192.0.2.1')).toBe(true);
    for (const pk of [
      'POST#post_1',
      'WORKSPACE#ws_1',
      'ACCOUNT#acct_1',
      'CONNECT#h',
      'RATE#key:x',
      'IDEMPOTENCY',
    ]) {
      expect(itemCall(fallbackGrants, 'UpdateItemCommand', pk), pk).toBe(false);
      expect(itemCall(fallbackGrants, 'PutItemCommand', pk), pk).toBe(false);
    }
    expect(itemCall(fallbackGrants, 'GetItemCommand', 'APIKEY#abc')).toBe(false);
    expect(itemCall(fallbackGrants, 'DeleteItemCommand', 'APIKEY#abc')).toBe(false);
    // ForAllValues alone would hold for a request without partition keys; Null: false refuses it.
    const arn = 'arn:aws:dynamodb:us-east-1:000000000000:table/herald';
    expect(grantsAllowing(fallbackGrants, { action: 'dynamodb:UpdateItem', resource: 'table', arn })).toEqual(
      [],
    );
    expect(
      grantsAllowing(fallbackGrants, {
        action: 'dynamodb:UpdateItem',
        resource: 'table',
        arn,
        context: { 'dynamodb:LeadingKeys': ['APIKEY#a', 'POST#p'] },
      }),
    ).toEqual([]);
    // A call with no partition key (a scan, the table's description) is no call of its.
    expect(
      allowedBy(fallbackGrants, 'DynamoDBClient', 'ScanCommand', { TableName: 'herald' })[0]?.grants,
    ).toEqual([]);
    expect(
      allowedBy(fallbackGrants, 'DynamoDBClient', 'DescribeTableCommand', { TableName: 'herald' })[0]?.grants,
    ).toEqual([]);
  });

  it('the OAuth callback reaches its connect state and the key and address counters, no account, channel, post, event or webhook', () => {
    const callback = routeGrants('GET /v1/channels/callback');
    expect(itemCall(callback, 'GetItemCommand', 'CONNECT#h')).toBe(true);
    expect(itemCall(callback, 'UpdateItemCommand', 'CONNECT#h')).toBe(true);
    expect(itemCall(callback, 'UpdateItemCommand', 'APIKEY#abc')).toBe(true);
    expect(itemCall(callback, 'UpdateItemCommand', 'RATE#ip:192.0.2.1')).toBe(true);
    // It keeps the grant in its connect state: the key holder's completion saves the channel.
    for (const pk of [
      'ACCOUNT#acct_1',
      'WORKSPACE#ws_1',
      'POST#post_1',
      'EVENT#evt_1',
      'WEBHOOK#wh_1',
      'IDEMPOTENCY',
      'SCHEDULE#s',
    ]) {
      for (const command of ['GetItemCommand', 'PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand'])
        expect(itemCall(callback, command, pk), `${command} ${pk}`).toBe(false);
    }
    // A transaction is checked item by item: one item outside its partitions refuses it.
    const transaction = (...pks: string[]) =>
      allowedBy(callback, 'DynamoDBClient', 'TransactWriteItemsCommand', {
        TransactItems: pks.map((PK) => ({ Put: { TableName: 'herald', Item: { PK, SK: 'x' } } })),
      }).map((request) => request.grants.length > 0);
    expect(transaction('CONNECT#h', 'CONNECT#h')).toEqual([true, true]);
    expect(transaction('CONNECT#h', 'WORKSPACE#ws_1')).toEqual([true, false]);
    // An index is never its to query.
    expect(
      allowedBy(callback, 'DynamoDBClient', 'QueryCommand', {
        TableName: 'herald',
        IndexName: 'GSI1',
        KeyConditionExpression: 'GSI1PK = :p',
        ExpressionAttributeValues: { ':p': 'OUTBOX' },
      })[0]?.grants,
    ).toEqual([]);
  });

  it('reads the partition keys of every kind of table call, as IAM’s dynamodb:LeadingKeys', () => {
    const leading = (command: string, input: Record<string, unknown>) =>
      sdkAccessRequests('DynamoDBClient', command, { TableName: 'herald', ...input }, names).requests.map(
        (request) => request.context?.['dynamodb:LeadingKeys'],
      );
    expect(leading('GetItemCommand', { Key: { PK: 'A#1', SK: 'x' } })).toEqual([['A#1']]);
    // The SDK's own shape (before the document client's marshalling, or without it).
    expect(leading('UpdateItemCommand', { Key: { PK: { S: 'A#2' }, SK: { S: 'x' } } })).toEqual([['A#2']]);
    expect(leading('PutItemCommand', { Item: { PK: 'A#3', SK: 'x', other: 1 } })).toEqual([['A#3']]);
    expect(
      leading('QueryCommand', {
        KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
        ExpressionAttributeNames: { '#pk': 'PK', '#sk': 'SK' },
        ExpressionAttributeValues: { ':pk': 'WORKSPACE#ws_1', ':prefix': 'CHANNEL#' },
      }),
    ).toEqual([['WORKSPACE#ws_1']]);
    expect(
      leading('QueryCommand', {
        KeyConditionExpression: 'SK > :s AND PK = :p',
        ExpressionAttributeValues: { ':p': { S: 'POST#1' }, ':s': { S: 'A' } },
      }),
    ).toEqual([['POST#1']]);
    expect(
      sdkAccessRequests(
        'DynamoDBClient',
        'BatchGetItemCommand',
        {
          RequestItems: {
            herald: {
              Keys: [
                { PK: 'A#1', SK: 'x' },
                { PK: 'B#2', SK: 'y' },
              ],
            },
          },
        },
        names,
      ).requests.map((request) => request.context?.['dynamodb:LeadingKeys']),
    ).toEqual([['A#1', 'B#2']]);
    expect(
      sdkAccessRequests(
        'DynamoDBClient',
        'BatchWriteItemCommand',
        {
          RequestItems: {
            herald: [
              { PutRequest: { Item: { PK: 'A#1', SK: 'x' } } },
              { DeleteRequest: { Key: { PK: 'C#3', SK: 'z' } } },
            ],
          },
        },
        names,
      ).requests.map((request) => request.context?.['dynamodb:LeadingKeys']),
    ).toEqual([['A#1', 'C#3']]);
    expect(
      sdkAccessRequests(
        'DynamoDBClient',
        'TransactWriteItemsCommand',
        {
          TransactItems: [
            { Put: { TableName: 'herald', Item: { PK: 'A#1', SK: 'x' } } },
            { ConditionCheck: { TableName: 'herald', Key: { PK: 'B#2', SK: 'y' } } },
          ],
        },
        names,
      ).requests.map((request) => request.context?.['dynamodb:LeadingKeys']),
    ).toEqual([['A#1'], ['B#2']]);
    // A scan names no partition: the key is absent.
    expect(leading('ScanCommand', {})).toEqual([undefined]);
  });

  it('refuses the fallback, on a real client, a write outside its partitions before it is sent', async () => {
    const sent: string[] = [];
    const client = new DynamoDBClient({
      region: 'us-east-1',
      credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
      endpoint: 'http://dynamo.invalid',
      maxAttempts: 1,
      requestHandler: {
        handle: async (request: { headers: Record<string, string> }) => {
          sent.push(request.headers['x-amz-target'] ?? '');
          return { response: { statusCode: 200, headers: {}, body: Readable.from([Buffer.from('{}')]) } };
        },
      } as never,
    });
    installGrantGuard(client);
    const doc = DynamoDBDocumentClient.from(client);
    const saved = process.env[ENV.tableName];
    process.env[ENV.tableName] = 'herald';
    try {
      const fallback = { id: '$default', name: 'http-fallback', grants: fallbackGrants };
      await runAsFunction(fallback, () =>
        doc.send(
          new UpdateCommand({
            TableName: 'herald',
            Key: { PK: 'RATE#ip:192.0.2.1', SK: 'WINDOW#60' },
            UpdateExpression: 'ADD #c :one',
            ExpressionAttributeNames: { '#c': 'count' },
            ExpressionAttributeValues: { ':one': 1 },
          }),
        ),
      );
      const error = await refusal(
        runAsFunction(fallback, () =>
          doc.send(
            new UpdateCommand({
              TableName: 'herald',
              Key: { PK: 'POST#post_1', SK: 'POST' },
              UpdateExpression: 'SET #s = :s',
              ExpressionAttributeNames: { '#s': 'status' },
              ExpressionAttributeValues: { ':s': 'failed' },
            }),
          ),
        ),
      );
      expect(error).toMatchObject({ name: 'AccessDeniedException', $metadata: { httpStatusCode: 400 } });
      expect(error.message).toContain('dynamodb:UpdateItem on resource: arn:aws:dynamodb:');
      expect(sent).toEqual(['DynamoDB_20120810.UpdateItem']);
    } finally {
      if (saved === undefined) delete process.env[ENV.tableName];
      else process.env[ENV.tableName] = saved;
    }
  });
});

describe('the partitions the scoped table grants name', () => {
  it('are the prefixes of the keys keys.ts builds for what the key-less functions touch', () => {
    expect(keys.apiKey('h').PK.startsWith(PARTITIONS.apiKey)).toBe(true);
    expect(keys.connectState('h').PK.startsWith(PARTITIONS.connectState)).toBe(true);
    expect(keys.account('acct_1').PK.startsWith(PARTITIONS.account)).toBe(true);
    expect(keys.channel('ws_1', 'ch_1').PK.startsWith(PARTITIONS.workspace)).toBe(true);
    expect(keys.channelRemote('ws_1', 'x', 'r').PK.startsWith(PARTITIONS.workspace)).toBe(true);
    // The rate limiter counts a request without a valid key by `ip:<address>` (http/pipeline.ts).
    expect(keys.rateWindow('ip:192.0.2.1', 0).PK.startsWith(PARTITIONS.addressRate)).toBe(true);
    // ... and no other partition starts like one of them.
    expect(keys.post('post_1').PK.startsWith(PARTITIONS.workspace)).toBe(false);
    expect(keys.event('evt_1').PK.startsWith(PARTITIONS.account)).toBe(false);
  });
});
