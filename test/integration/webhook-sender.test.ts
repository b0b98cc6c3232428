import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpsWebhookSender } from '../../functions/adapters/http/webhook-sender.ts';
import type { HostResolver } from '../../functions/ports/webhooks.ts';
import {
  makeCertificates,
  type Receiver,
  startReceiver,
  type TestCertificates,
} from '../support/https-receiver.ts';

let certs: TestCertificates;
let receiver: Receiver;

beforeAll(async () => {
  certs = makeCertificates();
  receiver = await startReceiver(certs, (r) =>
    r.path === '/hang'
      ? 'hang'
      : r.path === '/moved'
        ? { status: 301, headers: { location: '/' } }
        : { status: 204 },
  );
});
afterAll(async () => {
  await receiver?.close();
  certs?.remove();
});

/** A resolver that answers from a table and counts its calls: DNS as it stands at that moment. */
const fakeDns = (answers: Record<string, string[]>) => {
  const calls: string[] = [];
  const resolve: HostResolver = async (host) => {
    calls.push(host);
    const found = answers[host];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { resolve, calls, answers };
};

const sender = (dns: ReturnType<typeof fakeDns>, allowLoopback: boolean, ca = true) =>
  new HttpsWebhookSender({
    allowLoopback: () => allowLoopback,
    extraCaFile: () => (ca ? certs.caFile : undefined),
    resolve: dns.resolve,
  });

const post = (s: HttpsWebhookSender, url: string, timeoutMs = 2000) =>
  s.post({ url, body: '{"id":"evt_1"}', headers: { 'Content-Type': 'application/json' }, timeoutMs });

describe('HttpsWebhookSender', () => {
  it('resolves right before each delivery and connects to the very address it checked', async () => {
    const dns = fakeDns({ localhost: ['127.0.0.1'] });
    const s = sender(dns, true);
    const url = `https://localhost:${receiver.port}/pinned`;
    expect(await post(s, url)).toMatchObject({ ok: true, status: 204 });
    expect(await post(s, url)).toMatchObject({ ok: true, status: 204 });
    expect(dns.calls).toEqual(['localhost', 'localhost']);
    expect(receiver.received.filter((r) => r.path === '/pinned')).toHaveLength(2);
    // DNS now answers another loopback address, where nothing listens: that is where it connects.
    dns.answers.localhost = ['127.0.0.2'];
    expect(await post(s, url)).toMatchObject({ ok: false, errorCode: 'connection_failed' });
    expect(receiver.received.filter((r) => r.path === '/pinned')).toHaveLength(2);
  });

  it('refuses a host that now resolves to a private address (DNS rebinding), before connecting', async () => {
    const dns = fakeDns({ localhost: ['127.0.0.1'] });
    const before = receiver.received.length;
    const refused = await post(sender(dns, false), `https://localhost:${receiver.port}/rebound`);
    expect(refused).toMatchObject({ ok: false, status: null, errorCode: 'url_not_allowed' });
    if (!refused.ok)
      expect(refused.error).toMatch(/localhost resolves to 127\.0\.0\.1, which is a loopback address/);
    // One private address among public ones is enough to refuse the host.
    dns.answers['mixed.example'] = ['93.184.215.14', '10.0.0.7'];
    expect(await post(sender(dns, true), 'https://mixed.example/x')).toMatchObject({
      errorCode: 'url_not_allowed',
    });
    dns.answers['v6.example'] = ['::ffff:169.254.169.254'];
    expect(await post(sender(dns, true), 'https://v6.example/x')).toMatchObject({
      errorCode: 'url_not_allowed',
    });
    expect(receiver.received.length).toBe(before);
  });

  it('refuses private IP literals without asking DNS', async () => {
    const dns = fakeDns({});
    for (const url of ['https://10.0.0.1/x', 'https://[fd00::1]/x', 'https://169.254.169.254/x']) {
      expect(await post(sender(dns, true), url), url).toMatchObject({
        ok: false,
        errorCode: 'url_not_allowed',
      });
    }
    expect(dns.calls).toEqual([]);
  });

  it('reports DNS failures, untrusted certificates, redirects and timeouts', async () => {
    const dns = fakeDns({ localhost: ['127.0.0.1'] });
    expect(await post(sender(dns, true), 'https://nowhere.example/x')).toMatchObject({
      errorCode: 'dns_failed',
    });
    expect(await post(sender(dns, true, false), `https://localhost:${receiver.port}/`)).toMatchObject({
      errorCode: 'tls_failed',
    });
    expect(await post(sender(dns, true), `https://localhost:${receiver.port}/moved`)).toMatchObject({
      ok: false,
      status: 301,
      errorCode: 'redirect',
    });
    const started = Date.now();
    const timedOut = await post(sender(dns, true), `https://localhost:${receiver.port}/hang`, 300);
    expect(timedOut).toMatchObject({ ok: false, status: null, errorCode: 'timeout' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(Date.now() - started).toBeLessThan(1500);
  });
});
