import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { receiverTlsFiles } from '../../functions/adapters/local/receiver-tls.ts';
import { signWebhook } from '../../functions/shared/verify-webhook.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';
import { waitFor } from '../support/wait.ts';

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
    expect(output).toContain(`Deleted the webhook endpoint ${endpointId}.\nReceiver stopped.\n`);
    expect((await rt.api('/v1/webhooks')).body.data).toEqual([]);
  }, 180_000);
});

/** `npm run receiver` as a process manager starts it: in a process group of its own. */
const npmReceiver = (how: 'npm' | 'background') => {
  const child = spawn(
    how === 'npm' ? 'npm' : 'sh',
    how === 'npm'
      ? ['run', 'receiver']
      : ['-c', 'npm run receiver & pid=$!; echo "npm pid $pid"; wait "$pid"; echo "npm exited $?"'],
    {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: rt.dataDir, RECEIVER_PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    },
  );
  let printed = '';
  child.stdout?.on('data', (chunk) => {
    printed += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    printed += chunk;
  });
  npmReceivers.push(child);
  return { child, output: () => printed };
};
const npmReceivers: ChildProcess[] = [];
afterAll(() => {
  for (const child of npmReceivers) {
    if (child.exitCode === null && child.signalCode === null && child.pid) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  }
});

describe('npm run receiver under a process manager', () => {
  it.each([
    ['SIGINT to npm, a background job of a non-interactive shell', 'background', 'SIGINT', 'npm'],
    ['SIGINT to its process group (Ctrl-C)', 'npm', 'SIGINT', 'group'],
    ['SIGTERM to npm', 'npm', 'SIGTERM', 'npm'],
  ] as const)(
    'stops and deletes its endpoint on %s',
    async (_, how, signal, target) => {
      const run = npmReceiver(how);
      const [, endpointId] = await waitFor(
        () => /Receiving Herald webhooks on https:\/\/\S+ as (wh_\w+)/.exec(run.output()),
        { timeoutMs: 60_000, what: 'the receiver to subscribe' },
      );
      expect((await rt.api('/v1/webhooks')).body.data.map((e: { id: string }) => e.id)).toContain(endpointId);
      const npmPid =
        how === 'background'
          ? Number((/^npm pid (\d+)$/m.exec(run.output()) ?? [])[1])
          : (run.child.pid as number);
      process.kill(target === 'group' ? -npmPid : npmPid, signal);
      await waitFor(() => run.child.exitCode !== null || run.child.signalCode !== null, {
        timeoutMs: 30_000,
        what: `npm run receiver to exit after ${signal}`,
      });
      expect(run.child.exitCode, run.output()).toBe(0);
      expect(run.output()).toContain(`Deleted the webhook endpoint ${endpointId}.\nReceiver stopped.\n`);
      if (how === 'background') expect(run.output()).toContain('npm exited 0');
      expect((await rt.api('/v1/webhooks')).body.data).toEqual([]);
    },
    90_000,
  );

  it('says why it could not delete its endpoint', async () => {
    const run = npmReceiver('npm');
    const [, endpointId] = await waitFor(
      () => /Receiving Herald webhooks on https:\/\/\S+ as (wh_\w+)/.exec(run.output()),
      { timeoutMs: 60_000, what: 'the receiver to subscribe' },
    );
    // Someone deleted it meanwhile (the dashboard, another script).
    expect((await rt.api(`/v1/webhooks/${endpointId}`, { method: 'DELETE' })).status).toBeLessThan(300);
    process.kill(run.child.pid as number, 'SIGINT');
    await waitFor(() => run.child.exitCode !== null, { timeoutMs: 30_000, what: 'the receiver to exit' });
    expect(run.output()).toMatch(
      new RegExp(`Could not delete the webhook endpoint ${endpointId}: Herald answered 404 \\(.+\\)`),
    );
  }, 90_000);
});
