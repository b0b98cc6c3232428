import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { receiverTlsFiles } from '../../functions/adapters/local/receiver-tls.ts';
import { signWebhook } from '../../functions/shared/verify-webhook.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

const ROOT = resolve(import.meta.dirname, '../..');

let rt: TestRuntime;
let receiver: ChildProcess | undefined;
let output = '';

beforeAll(async () => {
  rt = await startTestRuntime();
});
afterAll(async () => {
  if (receiver && receiver.exitCode === null) receiver.kill('SIGKILL');
  await rt?.destroy();
});

const waitForOutput = async (pattern: RegExp, timeoutMs = 60_000): Promise<RegExpMatchArray> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = pattern.exec(output);
    if (match) return match;
    if (receiver?.exitCode !== null) throw new Error(`the receiver exited: ${output}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}: ${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

/** A POST to the receiver over HTTPS, trusting only its own certificate (as the runtime does). */
const postTo = (url: string, body: string, headers: Record<string, string>) =>
  new Promise<number>((done, reject) => {
    const req = request(
      url,
      { method: 'POST', headers, ca: readFileSync(receiverTlsFiles(rt.dataDir).certFile) },
      (res) => {
        res.resume();
        done(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end(body);
  });

describe('npm run receiver', () => {
  it('subscribes itself, prints each verified delivery, refuses a forged one and deletes its endpoint on Ctrl-C', async () => {
    receiver = spawn(process.execPath, ['--import', 'tsx', 'bin/receiver.ts'], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: rt.dataDir, RECEIVER_PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    receiver.stdout?.on('data', (chunk) => {
      output += chunk;
    });
    receiver.stderr?.on('data', (chunk) => {
      output += chunk;
    });
    const [, url, endpointId] = await waitForOutput(
      /Receiving Herald webhooks on (https:\/\/127\.0\.0\.1:\d+\/hooks) as (wh_\w+)/,
    );
    const listed = await rt.api('/v1/webhooks');
    expect(listed.body.data.map((e: { id: string; url: string }) => [e.id, e.url])).toEqual([
      [endpointId, url],
    ]);

    const x = rt.seed.channels.find((c) => c.platform === 'x')?.id;
    const post = await rt.api('/v1/posts', {
      method: 'POST',
      body: { intent: 'now', channels: [{ channelId: x, blocks: [{ content: 'Hello receiver' }] }] },
    });
    expect(post.status).toBe(201);
    const [line] = await waitForOutput(
      new RegExp(
        `verified post\\.published evt_\\w+ · attempt 1 · post ${post.body.id} · channel ${x} \\(x\\)`,
      ),
    );
    expect(line).toBeDefined();

    const forged = JSON.stringify({ id: 'evt_forged', type: 'post.published', data: {} });
    const status = await postTo(url as string, forged, {
      'content-type': 'application/json',
      'x-herald-signature': signWebhook(forged, 'whsec_not_the_secret', Math.floor(Date.now() / 1000)),
    });
    expect(status).toBe(400);
    await waitForOutput(/refused POST \/hooks: the signature does not verify/);
    expect(output).not.toContain('evt_forged');

    receiver.kill('SIGINT');
    const code = await new Promise<number | null>((done) => receiver?.once('exit', (c) => done(c)));
    expect(code).toBe(0);
    expect((await rt.api('/v1/webhooks')).body.data).toEqual([]);
  }, 180_000);
});
