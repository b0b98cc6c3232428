/**
 * Child process of the media benchmark (run with --expose-gc): plays one warm Lambda instance of
 * `POST /v1/media` and measures what a maximum-size multipart upload costs it in memory. The
 * parent runs the local runtime (DynamoDB Local, the S3 stand-in) and passes its environment, so
 * the stand-ins' memory is not counted here.
 *
 * Peak RSS is the kernel's high-water mark (`VmHWM` of /proc/self/status), reset just before the
 * invocation by writing 5 to /proc/self/clear_refs, so it catches peaks between two samples too;
 * the V8 figures (heap, external and array buffers) are sampled every millisecond.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { lambdaContext } from '../functions/adapters/local/queue-poller.ts';
import { MAX_DIRECT_UPLOAD_BYTES } from '../functions/core/media/formats.ts';
import { handler } from '../functions/http/media/upload.ts';
import { mediaFiles } from '../test/support/media-files.ts';

const key = process.env.BENCH_MEDIA_KEY as string;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

const BOUNDARY = '----herald-bench-boundary';

/** The API Gateway v2 event of a multipart upload, serialised as Lambda's runtime receives it. */
const eventJson = (file: Buffer, name: string): string => {
  const body = Buffer.concat([
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: video/mp4\r\n\r\n`,
    ),
    file,
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
  const now = new Date();
  const event: APIGatewayProxyEventV2 = {
    version: '2.0',
    routeKey: 'POST /v1/media',
    rawPath: '/v1/media',
    rawQueryString: '',
    headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'x-api-key': key },
    requestContext: {
      accountId: '000000000000',
      apiId: 'bench',
      domainName: 'localhost',
      domainPrefix: 'localhost',
      http: {
        method: 'POST',
        path: '/v1/media',
        protocol: 'HTTP/1.1',
        sourceIp: '127.0.0.1',
        userAgent: 'bench',
      },
      requestId: randomUUID(),
      routeKey: 'POST /v1/media',
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    body: body.toString('base64'),
    isBase64Encoded: true,
  };
  return JSON.stringify(event);
};

const hwmBytes = () =>
  Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]) * 1024;

const invoke = async (json: string) => {
  const context = lambdaContext('http-media-upload', 'us-east-1', 10) as Parameters<typeof handler>[1];
  const result = await handler(JSON.parse(json), context);
  if (result.statusCode !== 201) throw new Error(`upload answered ${result.statusCode}: ${result.body}`);
};

// Warm up: modules, SDK clients and connections, as in an instance that served requests before.
for (let i = 0; i < 3; i++) await invoke(eventJson(mediaFiles.mp4(64 * 1024), 'warm.mp4'));

const file = mediaFiles.mp4(MAX_DIRECT_UPLOAD_BYTES);
const runs: { rssBefore: number; rssPeak: number; v8Before: number; v8Peak: number }[] = [];
for (let i = 0; i < 3; i++) {
  const json = eventJson(file, 'max.mp4');
  gc();
  gc();
  await new Promise((r) => setTimeout(r, 50));
  const v8Now = () => {
    const m = process.memoryUsage();
    return m.heapUsed + m.external;
  };
  const rssBefore = process.memoryUsage().rss;
  const v8Before = v8Now();
  let v8Peak = v8Before;
  const sampler = setInterval(() => {
    v8Peak = Math.max(v8Peak, v8Now());
  }, 1);
  writeFileSync('/proc/self/clear_refs', '5');
  await invoke(json);
  clearInterval(sampler);
  v8Peak = Math.max(v8Peak, v8Now());
  runs.push({ rssBefore, rssPeak: hwmBytes(), v8Before, v8Peak });
}
process.stdout.write(
  JSON.stringify({ fileBytes: file.length, eventBytes: Buffer.byteLength(eventJson(file, 'max.mp4')), runs }),
);
process.exit(0);
