import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshWorkspace } from '../support/accounts.ts';
import type { Receiver } from '../support/https-receiver.ts';
import { waitForPost } from '../support/publishing.ts';
import { startReceiverRuntime } from '../support/receiver-runtime.ts';
import type { TestRuntime } from '../support/runtime.ts';

// As on AWS: loopback targets are refused like every other non-public address.
let rt: TestRuntime;
let receiver: Receiver;
let stop: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ rt, receiver, stop } = await startReceiverRuntime({
    env: {
      WEBHOOK_ALLOW_LOOPBACK: 'false',
      WEBHOOK_RETRY_BASE_SECONDS: '0.01',
    },
  }));
});
afterAll(async () => {
  await stop?.();
});

const REFUSED = [
  'https://127.0.0.1/hooks',
  'https://127.1.2.3:8443/hooks',
  'https://localhost/hooks',
  'https://2130706433/hooks', // 127.0.0.1 as one number
  'https://0x7f.0.0.1/hooks',
  'https://0.0.0.0/hooks',
  'https://10.1.2.3/hooks',
  'https://172.16.0.1/hooks',
  'https://192.168.1.1/hooks',
  'https://169.254.169.254/latest/meta-data/',
  'https://169.254.10.10/hooks',
  'https://100.64.0.1/hooks',
  'https://224.0.0.1/hooks',
  'https://255.255.255.255/hooks',
  'https://[::1]/hooks',
  'https://[::]/hooks',
  'https://[fd00::1]/hooks',
  'https://[fd00:ec2::254]/hooks',
  'https://[fe80::1]/hooks',
  'https://[::ffff:127.0.0.1]/hooks',
  'https://[::ffff:10.0.0.1]/hooks',
  'https://[::ffff:169.254.169.254]/hooks',
  'https://[64:ff9b::a00:1]/hooks',
  'https://[2002:7f00:1::]/hooks',
  'https://[ff02::1]/hooks',
];

describe('webhook targets must be on the public internet', () => {
  it.each(REFUSED)('refuses %s when saved', async (url) => {
    const ws = await freshWorkspace(rt, []);
    const res = await rt.api('/webhooks', {
      method: 'POST',
      key: ws.key,
      body: { url, events: ['post.published'] },
    });
    expect(res.status, res.text).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'url_not_allowed', field: 'url' });
    expect(res.body.error.message).toMatch(/public internet/);
  });

  it('refuses a private target on update too', async () => {
    const ws = await freshWorkspace(rt, []);
    const created = await rt.api('/webhooks', {
      method: 'POST',
      key: ws.key,
      body: { url: 'https://93.184.215.14/hooks', events: ['post.published'] },
    });
    expect(created.status, created.text).toBe(201);
    const res = await rt.api(`/webhooks/${created.body.endpoint.id}`, {
      method: 'PUT',
      key: ws.key,
      body: { url: 'https://[::ffff:192.168.0.1]/x' },
    });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('url_not_allowed');
    expect((await rt.api(`/webhooks/${created.body.endpoint.id}`, { key: ws.key })).body.url).toBe(
      'https://93.184.215.14/hooks',
    );
  });

  it('checks again at delivery: an endpoint whose host now points inside is not contacted', async () => {
    const ws = await freshWorkspace(rt, ['x']);
    const created = await rt.api('/webhooks', {
      method: 'POST',
      key: ws.key,
      body: { url: 'https://93.184.215.14/hooks', events: ['post.published'] },
    });
    const id = created.body.endpoint.id;
    // What a DNS change after saving amounts to: the target is now the receiver on loopback.
    await rt.container.deps.webhooks.updateEndpoint(ws.workspaceId, id, { url: receiver.url('/inside') });
    const post = await rt.api('/posts', {
      method: 'POST',
      key: ws.key,
      body: { intent: 'now', channels: [{ channelId: ws.channels.x, blocks: [{ content: 'rebinding' }] }] },
    });
    await waitForPost(rt, post.body.id, ws.key);
    const deadline = Date.now() + 10_000;
    let log: any[] = [];
    while (log.length < 2 && Date.now() < deadline) {
      log = (await rt.api(`/webhooks/${id}/deliveries`, { key: ws.key })).body.data;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(log.length).toBeGreaterThanOrEqual(2);
    for (const entry of log) {
      expect(entry).toMatchObject({ responseStatus: null, errorCode: 'url_not_allowed' });
      expect(entry.error).toMatch(/127\.0\.0\.1 is a loopback address/);
    }
    expect(receiver.received).toHaveLength(0);
    await rt.api(`/webhooks/${id}`, { method: 'DELETE', key: ws.key });
  });
});
