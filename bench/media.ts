/**
 * Media benchmark: upload throughput of a 50 MiB video through the presigned flow (start, PUT to
 * the local S3 stand-in, complete) beside a plain presigned PUT of the same bytes to the same
 * stand-in; and the memory a warm `POST /v1/media` instance needs for a maximum-size multipart
 * upload (measured in a child process, see media-memory.ts).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { startLocalRuntime } from '../functions/adapters/local/runtime.ts';
import { createAccount, createApiKey, createWorkspace } from '../functions/core/admin/admin.ts';
import { MAX_DIRECT_UPLOAD_BYTES } from '../functions/core/media/formats.ts';
import { mediaFiles } from '../test/support/media-files.ts';
import { machineLine, ms, percentile, ratio, writeSection } from './lib.ts';

const MiB = 1024 * 1024;
const VIDEO_BYTES = Number(process.env.BENCH_MEDIA_VIDEO_MIB ?? 50) * MiB;
const RUNS = Number(process.env.BENCH_MEDIA_RUNS ?? 5);

const median = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
const mbps = (bytes: number, millis: number) => bytes / MiB / (millis / 1000);
const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;

export const runMedia = async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'herald-bench-media-'));
  const runtime = await startLocalRuntime({ dataDir, port: 0, fresh: true, rateLimitPerMinute: 10_000_000 });
  try {
    const deps = runtime.container.deps;
    const account = await createAccount(deps, { name: 'Bench', plan: 'unlimited' });
    const ws = await createWorkspace(deps, { accountId: account.accountId, name: 'bench' });
    const { secret } = await createApiKey(deps, {
      accountId: account.accountId,
      workspaceId: ws.workspaceId,
      mode: 'live',
      permission: 'write',
      name: 'b',
    });
    const api = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${runtime.baseUrl}${path}`, {
        method,
        headers: { 'x-api-key': secret, 'content-type': 'application/json' },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      const json = (await res.json()) as any;
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    const video = mediaFiles.mp4(VIDEO_BYTES);

    const flow = {
      total: [] as number[],
      start: [] as number[],
      put: [] as number[],
      complete: [] as number[],
    };
    const plain: number[] = [];
    for (let i = 0; i < RUNS + 1; i++) {
      // Presigned flow, as a client runs it.
      const t0 = performance.now();
      const started = await api('POST', '/media/uploads', {
        fileName: 'bench.mp4',
        mimeType: 'video/mp4',
        size: video.length,
      });
      const t1 = performance.now();
      const put = await fetch(started.upload.url, {
        method: 'PUT',
        headers: started.upload.headers,
        body: video,
      });
      if (put.status !== 200) throw new Error(`PUT ${put.status}`);
      const t2 = performance.now();
      await api('POST', `/media/${started.media.id}/complete`);
      const t3 = performance.now();
      await api('DELETE', `/media/${started.media.id}`);
      // The same bytes with one presigned PUT and nothing else.
      const key = `bench/plain-${i}`;
      const target = await deps
        .blobs()
        .uploadUrl(key, { contentType: 'video/mp4', size: video.length, expiresInSeconds: 600 });
      const p0 = performance.now();
      const plainPut = await fetch(target.url, { method: 'PUT', headers: target.headers, body: video });
      if (plainPut.status !== 200) throw new Error(`plain PUT ${plainPut.status}`);
      const p1 = performance.now();
      await deps.blobs().delete(key);
      if (i === 0) continue; // warm-up round
      flow.total.push(t3 - t0);
      flow.start.push(t1 - t0);
      flow.put.push(t2 - t1);
      flow.complete.push(t3 - t2);
      plain.push(p1 - p0);
    }
    const flowMs = median(flow.total);
    const plainMs = median(plain);

    // Asynchronously: the S3 stand-in the child uploads to runs in this process's event loop.
    const child = await promisify(execFile)(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', resolve(import.meta.dirname, 'media-memory.ts')],
      { env: { ...process.env, BENCH_MEDIA_KEY: secret }, maxBuffer: 1024 * 1024 },
    );
    if (child.stderr.trim()) console.error(child.stderr);
    const memory = JSON.parse(child.stdout) as {
      fileBytes: number;
      eventBytes: number;
      runs: { rssBefore: number; rssPeak: number; v8Before: number; v8Peak: number }[];
    };
    const rssDelta = median(memory.runs.map((r) => r.rssPeak - r.rssBefore));
    const rssPeak = Math.max(...memory.runs.map((r) => r.rssPeak));
    const v8Delta = median(memory.runs.map((r) => r.v8Peak - r.v8Before));

    const md = `## Media: uploads (issue 6)

Command: \`npm run bench -- media\` (${RUNS} runs after one warm-up, medians; local runtime, s3rver as S3).
${machineLine()}

### Throughput of a ${mib(VIDEO_BYTES)} video

| path | time | throughput |
|---|---|---|
| presigned flow: POST /v1/media/uploads + PUT to S3 + POST /v1/media/{id}/complete | ${ms(flowMs)} | ${mbps(VIDEO_BYTES, flowMs).toFixed(1)} MiB/s |
| &nbsp;&nbsp;start | ${ms(median(flow.start))} | |
| &nbsp;&nbsp;PUT of the bytes to the presigned URL | ${ms(median(flow.put))} | ${mbps(VIDEO_BYTES, median(flow.put)).toFixed(1)} MiB/s |
| &nbsp;&nbsp;complete (HEAD, ranged GET of 64 KiB, sniff, server-side copy into the library, transaction) | ${ms(median(flow.complete))} | |
| plain presigned PUT of the same bytes to the S3 stand-in | ${ms(plainMs)} | ${mbps(VIDEO_BYTES, plainMs).toFixed(1)} MiB/s |
| ratio (flow / plain PUT) | ${ratio(flowMs, plainMs)} | |

The bytes never pass through a function: the flow's cost over a bare PUT is two API calls and
the copy from \`uploads/\` into the library (a server-side CopyObject on S3; a disk copy in s3rver).

### Memory of POST /v1/media for a maximum-size multipart upload

A warm instance (three small uploads first) in a child process run with \`--expose-gc\`, given the
API Gateway event of a ${mib(memory.fileBytes)} file (the multipart limit, ${MAX_DIRECT_UPLOAD_BYTES} bytes) as the JSON
Lambda's runtime receives (${mib(memory.eventBytes)}, base64 body). Measured around \`JSON.parse\` of the
event plus the handler: peak RSS from the kernel's high-water mark (\`VmHWM\`, reset through
\`/proc/self/clear_refs\` just before), V8 heap + external memory sampled every millisecond; median of 3.

| measure | value |
|---|---|
| peak RSS growth during the invocation | ${mib(rssDelta)} |
| peak V8 heap + external growth (sampled) | ${mib(v8Delta)} |
| peak RSS of the whole process | ${mib(rssPeak)} |
| function memory setting (CDK default of the stack) | 512 MiB |

The handler holds the event's base64 text, the decoded body, the parsed form's copy of the file
and the SDK's request: a few times the file, far below the function's memory.
`;
    writeSection('media', md);
    console.log(md);
  } finally {
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
};
