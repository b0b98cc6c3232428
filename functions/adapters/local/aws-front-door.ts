/**
 * The deploy rehearsal's AWS endpoint: every SDK call of a rehearsed bundle comes here (its
 * environment's AWS_ENDPOINT_URL_*), is told apart by the signing scope's service, authorised as
 * IAM would for the calling function (known by the session token Lambda gave it), then forwarded to
 * the local engine (DynamoDB Local, s3rver, fauxqs) or answered by a small stand-in for what has no
 * local engine: KMS Encrypt/Decrypt, Secrets Manager GetSecretValue and EventBridge Scheduler's
 * one-time schedules (fired to SQS on time, under the scheduler role's own policy). The bundles
 * run unchanged with HERALD_RUNTIME=aws, as the template sets it; nothing here is in a bundle.
 */
import { createCipheriv, createDecipheriv, randomBytes, randomUUID } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AccessRequest } from '../../shared/grants.ts';
import { type ResourceNames, sdkAccessRequests } from './grant-guard.ts';

/** A function calling AWS, as its role's policies see it. */
export interface Caller {
  /** The function's name (shown in refusals). */
  name: string;
  /** Whether its role's policies allow the request. */
  allows(request: AccessRequest): boolean;
}

/** A one-time schedule as EventBridge Scheduler would deliver it. */
export interface DueSchedule {
  name: string;
  group: string;
  target: { Arn: string; RoleArn: string; Input: string };
}

export interface FrontDoorOptions {
  dynamoEndpoint: string;
  s3Endpoint: string;
  sqsEndpoint: string;
  /** fauxqs's queue URL base (`http://sqs.us-east-1.localhost:<port>`): the functions' URLs are rewritten to it. */
  sqsQueueBase: string;
  /** The function a session token was given to; undefined for a call with none (the runtime itself, unchecked). */
  callerOf(sessionToken: string | undefined): Caller | undefined;
  /** The names the access requests are built from (table, bucket, queue URLs as the functions see them). */
  names: () => ResourceNames;
  /** The token key: its id and ARN. */
  kmsKey: { id: string; arn: string };
  /** The schedule groups that exist (the template's). */
  scheduleGroups: ReadonlySet<string>;
  /** A secret's value by its name, or undefined when it does not exist. */
  secret(name: string): string | undefined;
  /** Delivers a due schedule (the scheduler role's policy is checked by the caller). */
  deliver(schedule: DueSchedule): Promise<void>;
  /** Each call refused (the rehearsal reports them). */
  onRefused?: (caller: Caller, request: AccessRequest) => void;
  onError?: (error: unknown) => void;
}

export interface FrontDoor {
  url: string;
  /** Schedules waiting to fire. */
  pendingSchedules(): DueSchedule[];
  stop(): Promise<void>;
}

type Input = Record<string, unknown>;

const readBody = (req: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });

/** The signing scope's service and the session token, from the Authorization header or a presigned URL. */
const signing = (req: IncomingMessage, url: URL) => {
  const credential =
    /Credential=([^,\s]+)/.exec(String(req.headers.authorization ?? ''))?.[1] ??
    url.searchParams.get('X-Amz-Credential') ??
    '';
  const service = credential.split('/')[3] ?? '';
  const tokenHeader = req.headers['x-amz-security-token'];
  const token =
    (typeof tokenHeader === 'string' ? tokenHeader : undefined) ??
    url.searchParams.get('X-Amz-Security-Token') ??
    undefined;
  return { service, token };
};

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/x-amz-json-1.1',
    'content-length': Buffer.byteLength(text),
    'x-amzn-requestid': randomUUID(),
    ...headers,
  });
  res.end(text);
};

const jsonError = (res: ServerResponse, status: number, type: string, message: string) =>
  json(res, status, { __type: type, message, Message: message }, { 'x-amzn-errortype': type });

const xmlError = (res: ServerResponse, status: number, code: string, message: string, head = false) => {
  const body = head
    ? ''
    : `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message><RequestId>${randomUUID()}</RequestId></Error>`;
  res.writeHead(status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body) });
  res.end(body);
};

const deniedMessage = (caller: Caller, request: AccessRequest, lower = false) => {
  const action = lower ? request.action.toLowerCase() : request.action;
  return (
    `User: arn:aws:sts::000000000000:assumed-role/${caller.name}-role/${caller.name} is not authorized to perform: ` +
    `${action} on resource: ${request.arn} because no identity-based policy allows the ${action} action`
  );
};

/** The S3 operation of a path-style REST request (what the SDK's commands send). */
const s3Operation = (method: string, url: URL, headers: IncomingMessage['headers']) => {
  const [, bucket = '', ...rest] = url.pathname.split('/');
  const key = decodeURIComponent(rest.join('/'));
  const q = url.searchParams;
  let op: string;
  if (key === '') {
    if (method === 'GET' && q.has('uploads')) op = 'ListMultipartUploads';
    else if (method === 'GET') op = q.get('list-type') === '2' ? 'ListObjectsV2' : 'ListObjects';
    else if (method === 'HEAD') op = 'HeadBucket';
    else if (method === 'POST' && q.has('delete')) op = 'DeleteObjects';
    else op = `${method}Bucket`;
  } else if (method === 'GET') op = q.has('uploadId') ? 'ListParts' : 'GetObject';
  else if (method === 'HEAD') op = 'HeadObject';
  else if (method === 'PUT') {
    if (q.has('uploadId')) op = headers['x-amz-copy-source'] ? 'UploadPartCopy' : 'UploadPart';
    else op = headers['x-amz-copy-source'] ? 'CopyObject' : 'PutObject';
  } else if (method === 'DELETE') op = q.has('uploadId') ? 'AbortMultipartUpload' : 'DeleteObject';
  else if (method === 'POST') op = q.has('uploads') ? 'CreateMultipartUpload' : 'CompleteMultipartUpload';
  else op = `${method}Object`;
  const copy = headers['x-amz-copy-source'];
  return {
    op,
    input: {
      Bucket: bucket,
      ...(key ? { Key: key } : {}),
      ...(typeof copy === 'string' ? { CopySource: copy } : {}),
    } as Input,
  };
};

/** KMS stand-in: AES-256-GCM under one local key, the encryption context bound as associated data. */
const kmsStandIn = (keyId: string) => {
  const secret = randomBytes(32);
  const aad = (context: Record<string, string> = {}) =>
    Buffer.from(
      JSON.stringify(Object.entries(context).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
      'utf8',
    );
  return {
    encrypt(plaintext: Buffer, context: Record<string, string> | undefined): Buffer {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', secret, iv);
      cipher.setAAD(aad(context));
      const sealed = Buffer.concat([cipher.update(plaintext), cipher.final()]);
      const id = Buffer.from(keyId, 'utf8');
      return Buffer.concat([Buffer.from([id.length]), id, iv, cipher.getAuthTag(), sealed]);
    },
    /** The plaintext, or null when the ciphertext or its context is not ours (InvalidCiphertextException). */
    decrypt(blob: Buffer, context: Record<string, string> | undefined): Buffer | null {
      try {
        const idLength = blob[0] ?? 0;
        if (blob.subarray(1, 1 + idLength).toString('utf8') !== keyId) return null;
        const at = 1 + idLength;
        const decipher = createDecipheriv('aes-256-gcm', secret, blob.subarray(at, at + 12));
        decipher.setAAD(aad(context));
        decipher.setAuthTag(blob.subarray(at + 12, at + 28));
        return Buffer.concat([decipher.update(blob.subarray(at + 28)), decipher.final()]);
      } catch {
        return null;
      }
    },
  };
};

/** `at(2026-11-29T14:00:00)` (in UTC, as Herald writes it) as a time. */
const atTime = (expression: string): number | null => {
  const match = /^at\((\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\)$/.exec(expression);
  return match ? Date.parse(`${match[1]}Z`) : null;
};

/** Starts the rehearsal's AWS endpoint on a free loopback port. */
export const startFrontDoor = async (options: FrontDoorOptions): Promise<FrontDoor> => {
  const kms = kmsStandIn(options.kmsKey.id);
  const schedules = new Map<string, { schedule: DueSchedule; timer: NodeJS.Timeout }>();
  let selfBase = '';
  const onError = options.onError ?? ((error: unknown) => console.error('AWS front door:', error));

  const forward = (
    req: IncomingMessage,
    res: ServerResponse,
    target: string,
    body: Buffer,
    rewrite?: (text: string) => string,
    onStatus?: (status: number) => boolean,
  ) =>
    new Promise<void>((resolve) => {
      const endpoint = new URL(target);
      const headers = { ...req.headers };
      const payload = rewrite ? Buffer.from(rewrite(body.toString('utf8')), 'utf8') : body;
      if (rewrite) headers['content-length'] = String(payload.length);
      const out = httpRequest(
        {
          host: endpoint.hostname,
          port: endpoint.port,
          method: req.method,
          path: req.url,
          // The Host header stays as signed (s3rver checks signatures).
          headers,
        },
        (answer) => {
          if (onStatus && !onStatus(answer.statusCode ?? 0)) {
            answer.resume();
            resolve();
            return;
          }
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          answer.on('end', resolve);
        },
      );
      out.on('error', (error) => {
        onError(error);
        if (!res.headersSent) jsonError(res, 502, 'ServiceUnavailable', String(error));
        resolve();
      });
      out.end(payload);
    });

  /** Refuses (and answers) unless the caller may make every request. */
  const authorised = (
    caller: Caller | undefined,
    requests: AccessRequest[],
    refuse: (message: string) => void,
    lower = false,
  ): boolean => {
    if (!caller) return true;
    const denied = requests.find((request) => !caller.allows(request));
    if (!denied) return true;
    options.onRefused?.(caller, denied);
    refuse(deniedMessage(caller, denied, lower));
    return false;
  };

  const fire = (key: string) => {
    const entry = schedules.get(key);
    if (!entry) return;
    schedules.delete(key);
    options.deliver(entry.schedule).catch(onError);
  };

  const scheduler = async (
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    caller: Caller | undefined,
  ) => {
    const body = await readBody(req);
    const name = decodeURIComponent(url.pathname.replace(/^\/schedules\//, ''));
    const input = (body.length ? JSON.parse(body.toString('utf8')) : {}) as Input;
    const group = String(input.GroupName ?? url.searchParams.get('groupName') ?? 'default');
    const op =
      req.method === 'POST'
        ? 'CreateSchedule'
        : req.method === 'PUT'
          ? 'UpdateSchedule'
          : req.method === 'DELETE'
            ? 'DeleteSchedule'
            : 'GetSchedule';
    const { requests } = sdkAccessRequests(
      'SchedulerClient',
      `${op}Command`,
      { ...input, Name: name, GroupName: group },
      options.names(),
    );
    const refuse = (message: string) =>
      json(res, 403, { Message: message }, { 'x-amzn-errortype': 'AccessDeniedException' });
    if (!authorised(caller, requests, refuse)) return;
    if (group !== 'default' && !options.scheduleGroups.has(group))
      return json(
        res,
        404,
        { Message: `Schedule group ${group} does not exist.` },
        { 'x-amzn-errortype': 'ResourceNotFoundException' },
      );
    const key = `${group}/${name}`;
    const existing = schedules.get(key);
    const arn = `arn:aws:scheduler:us-east-1:000000000000:schedule/${key}`;
    if (op === 'DeleteSchedule' || op === 'GetSchedule') {
      if (!existing)
        return json(
          res,
          404,
          { Message: `Schedule ${name} does not exist.` },
          { 'x-amzn-errortype': 'ResourceNotFoundException' },
        );
      if (op === 'GetSchedule')
        return json(res, 200, { Name: name, GroupName: group, Arn: arn, Target: existing.schedule.target });
      clearTimeout(existing.timer);
      schedules.delete(key);
      return json(res, 200, {});
    }
    if (op === 'CreateSchedule' && existing)
      return json(
        res,
        409,
        { Message: `Schedule ${name} already exists.` },
        { 'x-amzn-errortype': 'ConflictException' },
      );
    if (op === 'UpdateSchedule' && !existing)
      return json(
        res,
        404,
        { Message: `Schedule ${name} does not exist.` },
        { 'x-amzn-errortype': 'ResourceNotFoundException' },
      );
    const at = atTime(String(input.ScheduleExpression ?? ''));
    if (at === null || (input.ScheduleExpressionTimezone ?? 'UTC') !== 'UTC')
      return json(
        res,
        400,
        { Message: 'The rehearsal plays one-time at() schedules in UTC only.' },
        { 'x-amzn-errortype': 'ValidationException' },
      );
    const target = input.Target as DueSchedule['target'];
    if (existing) clearTimeout(existing.timer);
    const timer = setTimeout(() => fire(key), Math.max(0, at - Date.now()));
    timer.unref();
    schedules.set(key, { schedule: { name, group, target }, timer });
    return json(res, 200, { ScheduleArn: arn });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://front-door');
    const { service, token } = signing(req, url);
    const caller = options.callerOf(token);
    if (token !== undefined && !caller)
      return jsonError(
        res,
        403,
        'UnrecognizedClientException',
        'The security token included in the request is invalid.',
      );
    const target = String(req.headers['x-amz-target'] ?? '');
    const op = target.split('.').at(-1) ?? '';
    switch (service) {
      case 'dynamodb': {
        const body = await readBody(req);
        const input = JSON.parse(body.toString('utf8') || '{}') as Input;
        const { requests } = sdkAccessRequests('DynamoDBClient', `${op}Command`, input, options.names());
        const refuse = (message: string) =>
          jsonError(res, 400, 'com.amazonaws.dynamodb.v20120810#AccessDeniedException', message);
        if (!authorised(caller, requests, refuse)) return;
        return forward(req, res, options.dynamoEndpoint, body);
      }
      case 'sqs': {
        const body = await readBody(req);
        const input = JSON.parse(body.toString('utf8') || '{}') as Input;
        const { requests } = sdkAccessRequests('SQSClient', `${op}Command`, input, options.names());
        const refuse = (message: string) => jsonError(res, 403, 'com.amazonaws.sqs#AccessDenied', message);
        if (!authorised(caller, requests, refuse, true)) return;
        return forward(req, res, options.sqsEndpoint, body, (text) =>
          text.replaceAll(selfBase, options.sqsQueueBase),
        );
      }
      case 's3': {
        const body = await readBody(req);
        const { op: s3op, input } = s3Operation(req.method ?? 'GET', url, req.headers);
        const names = options.names();
        const { requests } = sdkAccessRequests('S3Client', `${s3op}Command`, input, names);
        const head = req.method === 'HEAD';
        const refuse = (message: string) => xmlError(res, 403, 'AccessDenied', message, head);
        if (!authorised(caller, requests, refuse)) return;
        const readsObject = s3op === 'GetObject' || s3op === 'HeadObject';
        // S3 tells a missing object (404) only to a caller that may list the bucket; else 403.
        return forward(req, res, options.s3Endpoint, body, undefined, (status) => {
          if (!readsObject || status !== 404 || !caller) return true;
          const listing: AccessRequest = {
            action: 's3:ListBucket',
            resource: 'mediaBucket',
            arn: `arn:aws:s3:::${String(input.Bucket)}`,
          };
          if (caller.allows(listing)) return true;
          options.onRefused?.(caller, listing);
          xmlError(res, 403, head ? 'Forbidden' : 'AccessDenied', deniedMessage(caller, listing), head);
          return false;
        });
      }
      case 'kms': {
        const input = JSON.parse((await readBody(req)).toString('utf8') || '{}') as Input;
        const context = input.EncryptionContext as Record<string, string> | undefined;
        const keyNamed =
          input.KeyId === undefined ||
          input.KeyId === options.kmsKey.id ||
          input.KeyId === options.kmsKey.arn;
        const request: AccessRequest = {
          action: `kms:${op}`,
          resource: 'tokenKey',
          arn: keyNamed
            ? options.kmsKey.arn
            : `arn:aws:kms:us-east-1:000000000000:key/${String(input.KeyId)}`,
          context: Object.fromEntries(
            Object.entries(context ?? {}).map(([k, v]) => [`kms:EncryptionContext:${k}`, v]),
          ),
        };
        const refuse = (message: string) => jsonError(res, 400, 'AccessDeniedException', message);
        if (!authorised(caller, [request], refuse)) return;
        if (!keyNamed)
          return jsonError(res, 400, 'NotFoundException', `Key '${String(input.KeyId)}' does not exist`);
        if (op === 'Encrypt') {
          const blob = kms.encrypt(Buffer.from(String(input.Plaintext), 'base64'), context);
          return json(res, 200, {
            CiphertextBlob: blob.toString('base64'),
            KeyId: options.kmsKey.arn,
            EncryptionAlgorithm: 'SYMMETRIC_DEFAULT',
          });
        }
        if (op === 'Decrypt') {
          const plain = kms.decrypt(Buffer.from(String(input.CiphertextBlob), 'base64'), context);
          if (!plain) return jsonError(res, 400, 'InvalidCiphertextException', '');
          return json(res, 200, {
            Plaintext: plain.toString('base64'),
            KeyId: options.kmsKey.arn,
            EncryptionAlgorithm: 'SYMMETRIC_DEFAULT',
          });
        }
        return jsonError(res, 400, 'UnsupportedOperationException', `The rehearsal plays KMS ${op} nowhere`);
      }
      case 'secretsmanager': {
        const input = JSON.parse((await readBody(req)).toString('utf8') || '{}') as Input;
        const name = String(input.SecretId ?? '');
        // Secrets Manager appends six random characters to a secret's name in its ARN.
        const request: AccessRequest = {
          action: `secretsmanager:${op}`,
          resource: 'appSecrets',
          arn: `arn:aws:secretsmanager:us-east-1:000000000000:secret:${name}-AbCdEf`,
        };
        const refuse = (message: string) => jsonError(res, 400, 'AccessDeniedException', message);
        if (!authorised(caller, [request], refuse)) return;
        const value = options.secret(name);
        if (op !== 'GetSecretValue' || value === undefined)
          return jsonError(
            res,
            400,
            'ResourceNotFoundException',
            "Secrets Manager can't find the specified secret.",
          );
        return json(res, 200, { ARN: request.arn, Name: name, SecretString: value, VersionId: 'v1' });
      }
      case 'scheduler':
        return scheduler(req, res, url, caller);
      default:
        req.resume();
        return jsonError(
          res,
          400,
          'UnknownOperationException',
          `The rehearsal plays no AWS service "${service}"`,
        );
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      onError(error);
      if (!res.headersSent) jsonError(res, 500, 'InternalFailure', String(error));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  selfBase = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: selfBase,
    pendingSchedules: () => [...schedules.values()].map((entry) => entry.schedule),
    stop: async () => {
      for (const entry of schedules.values()) clearTimeout(entry.timer);
      schedules.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
