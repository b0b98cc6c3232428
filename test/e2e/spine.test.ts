import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLATFORM_IDS } from '../../functions/domain/platforms/types.ts';
import { REQUEST_ID, startTestRuntime, type TestRuntime } from '../support/runtime.ts';

let rt: TestRuntime;

beforeAll(async () => {
  rt = await startTestRuntime();
});
afterAll(async () => {
  await rt?.destroy();
});

const expectEnvelope = (body: any, code: string, status: number, actual: number) => {
  expect(actual).toBe(status);
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe('string');
  expect(body.error.message.length).toBeGreaterThan(0);
  expect(body.error.requestId).toMatch(REQUEST_ID);
};

describe('health and seed', () => {
  it('GET /health answers 200 without a key', async () => {
    const res = await rt.api('/health', { key: null });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('writes seed.json with keys of each kind, a channel per platform and tags', () => {
    const seed = JSON.parse(readFileSync(join(rt.dataDir, 'seed.json'), 'utf8'));
    expect(seed.baseUrl).toBe(rt.baseUrl);
    expect(seed.keys.live).toMatch(/^sk_live_[0-9A-Za-z]{32}$/);
    expect(seed.keys.test).toMatch(/^sk_test_[0-9A-Za-z]{32}$/);
    expect(seed.keys.read).toMatch(/^sk_live_/);
    expect(seed.keys.otherWorkspace).toMatch(/^sk_live_/);
    expect(new Set(seed.channels.map((c: any) => c.platform))).toEqual(new Set(PLATFORM_IDS));
    for (const channel of seed.channels) expect(channel.id).toMatch(/^ch_[0-9A-Za-z]{22}$/);
    expect(seed.tags.length).toBeGreaterThan(0);
    expect(seed.otherWorkspace.channels).toHaveLength(1);
  });
});

describe('authentication', () => {
  it('accepts x-api-key and Authorization: Bearer', async () => {
    expect((await rt.api('/channels')).status).toBe(200);
    const bearer = await rt.api('/channels', {
      key: null,
      headers: { authorization: `Bearer ${rt.seed.keys.live}` },
    });
    expect(bearer.status).toBe(200);
  });

  it.each([
    ['no key', null, {}],
    ['an unknown key', 'sk_live_00000000000000000000000000000000', {}],
    ['a malformed key', 'not-a-key', {}],
    ['a Bearer header without a key', null, { authorization: 'Bearer' }],
    ['a Basic header', null, { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }],
  ])('refuses %s with 401', async (_, key, headers) => {
    const res = await rt.api('/platforms', { key, headers });
    expectEnvelope(res.body, 'unauthorized', 401, res.status);
    expect(res.text).not.toContain('sk_live_0000');
  });

  it('gives read-only keys GET and 403 on anything else', async () => {
    expect((await rt.api('/tags', { key: rt.seed.keys.read })).status).toBe(200);
    const res = await rt.api('/tags', { key: rt.seed.keys.read, method: 'POST', body: { name: 'Nope' } });
    expectEnvelope(res.body, 'forbidden', 403, res.status);
    const tags = await rt.api('/tags');
    expect(tags.body.data.map((t: any) => t.name)).not.toContain('Nope');
  });

  it('shows a key only its own workspace', async () => {
    const mine = await rt.api('/channels');
    const theirs = await rt.api('/channels', { key: rt.seed.keys.otherWorkspace });
    expect(mine.body.data).toHaveLength(PLATFORM_IDS.length);
    expect(theirs.body.data).toHaveLength(1);
    const mineIds = new Set(mine.body.data.map((c: any) => c.id));
    expect(mineIds.has(theirs.body.data[0].id)).toBe(false);
    await rt.api('/tags', {
      key: rt.seed.keys.otherWorkspace,
      method: 'POST',
      body: { name: 'Only theirs' },
    });
    const myTags = await rt.api('/tags');
    expect(myTags.body.data.map((t: any) => t.name)).not.toContain('Only theirs');
  });
});

describe('error envelope', () => {
  it('answers unknown routes with 404', async () => {
    const res = await rt.api('/v1/nothing-here');
    expectEnvelope(res.body, 'not_found', 404, res.status);
    const outside = await rt.api(`${rt.url}/v2/posts`);
    expectEnvelope(outside.body, 'not_found', 404, outside.status);
  });

  it('answers a wrong method with 405 and Allow', async () => {
    const res = await rt.api('/platforms', { method: 'DELETE' });
    expectEnvelope(res.body, 'method_not_allowed', 405, res.status);
    expect(res.headers.get('allow')).toBe('GET');
    const tags = await rt.api('/tags', { method: 'PUT', body: {} });
    expect(tags.headers.get('allow')).toBe('GET, POST');
  });

  it('answers malformed JSON with 400 invalid_json', async () => {
    const res = await rt.api('/tags', {
      method: 'POST',
      rawBody: '{"name": "broken",',
      headers: { 'content-type': 'application/json' },
    });
    expectEnvelope(res.body, 'invalid_json', 400, res.status);
  });

  it('answers a non-JSON body with 415', async () => {
    const res = await rt.api('/tags', {
      method: 'POST',
      rawBody: 'name=x',
      headers: { 'content-type': 'text/plain' },
    });
    expectEnvelope(res.body, 'unsupported_media_type', 415, res.status);
  });

  it('answers a body over the JSON limit with 413, and one over the gateway limit too', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) });
    const res = await rt.api('/tags', {
      method: 'POST',
      rawBody: big,
      headers: { 'content-type': 'application/json' },
    });
    expectEnvelope(res.body, 'payload_too_large', 413, res.status);
    const huge = Buffer.alloc(11 * 1024 * 1024, 0x61);
    const gateway = await rt.api('/tags', {
      method: 'POST',
      rawBody: huge,
      headers: { 'content-type': 'application/json' },
    });
    expect(gateway.status).toBe(413);
    expect(gateway.body.error.code).toBe('payload_too_large');
  });

  it("answers a request line and headers over API Gateway's 10,240 bytes with 413, on any route", async () => {
    const over = await rt.api(`/posts?tag=${'x'.repeat(10_300)}`);
    expect(over.status).toBe(413);
    expect(over.body.error.code).toBe('payload_too_large');
    expect(over.body.error.message).toContain('10240');
    const headers = await rt.api('/posts', { headers: { 'x-filler': 'y'.repeat(10_300) } });
    expect(headers.status).toBe(413);
    // Just under the quota, the route itself answers (an unknown tag filter is its own 400).
    const under = await rt.api(`/posts?tag=${'x'.repeat(9_000)}`);
    expect(under.status).not.toBe(413);
    expect(under.status).toBeLessThan(500);
  });

  it('names the offending field of an invalid body', async () => {
    const missing = await rt.api('/tags', { method: 'POST', body: {} });
    expectEnvelope(missing.body, 'validation_failed', 400, missing.status);
    expect(missing.body.error.field).toBe('name');
    const unknown = await rt.api('/tags', { method: 'POST', body: { name: 'ok', colour: 'red' } });
    expect(unknown.body.error.field).toBe('colour');
    const wrongType = await rt.api('/tags', { method: 'POST', body: { name: 42 } });
    expect(wrongType.body.error.field).toBe('name');
    const notObject = await rt.api('/tags', { method: 'POST', body: [1, 2] });
    expect(notObject.status).toBe(400);
  });
});

describe('reference data', () => {
  it('serves the 12 platforms with the spec fields', async () => {
    const res = await rt.api('/platforms');
    expect(res.status).toBe(200);
    expect(res.body.data.map((p: any) => p.id)).toEqual([...PLATFORM_IDS]);
    for (const p of res.body.data) {
      expect(typeof p.limits.maxLength).toBe('number');
      expect(typeof p.limits.maxBlocks).toBe('number');
      expect(p.limits).toHaveProperty('title');
      expect(Array.isArray(p.limits.options)).toBe(true);
      expect(p.limits).toHaveProperty('remoteEdit');
      expect(typeof p.limits.supportsRemoteDelete).toBe('boolean');
      expect(Array.isArray(p.limits.acceptedMimeTypes)).toBe(true);
      expect(typeof p.limits.maxMedia).toBe('number');
      expect(typeof p.limits.requiresMedia).toBe('boolean');
      expect(Array.isArray(p.postTypes)).toBe(true);
    }
    const x = res.body.data.find((p: any) => p.id === 'x');
    expect(x.limits.maxLength).toBe(280);
    expect(x.limits.maxBlocks).toBe(25);
  });

  it('lists channels with their statuses', async () => {
    const res = await rt.api('/channels');
    const byPlatform = Object.fromEntries(res.body.data.map((c: any) => [c.platform, c]));
    expect(byPlatform.x).toMatchObject({
      status: 'connected',
      continuationStatus: 'available',
      manageStatus: 'available',
    });
    expect(byPlatform.tiktok.continuationStatus).toBe('unsupported');
    expect(byPlatform.instagram.manageStatus).toBe('unsupported');
    for (const c of res.body.data) {
      expect(Object.keys(c).sort()).toEqual(
        [
          'continuationStatus',
          'createdAt',
          'id',
          'manageStatus',
          'metricsStatus',
          'name',
          'platform',
          'status',
        ].sort(),
      );
    }
  });

  it('creates tags, unique per workspace ignoring case', async () => {
    const created = await rt.api('/tags', {
      method: 'POST',
      body: { name: 'Spring sale', color: '#ff8800' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Spring sale', color: '#ff8800' });
    expect(created.body.id).toMatch(/^tag_/);
    const again = await rt.api('/tags', { method: 'POST', body: { name: '  spring SALE ' } });
    expectEnvelope(again.body, 'already_exists', 409, again.status);
    expect(again.body.error.field).toBe('name');
    const list = await rt.api('/tags');
    expect(list.body.data.filter((t: any) => t.name.toLowerCase() === 'spring sale')).toHaveLength(1);
    const other = await rt.api('/tags', {
      key: rt.seed.keys.otherWorkspace,
      method: 'POST',
      body: { name: 'Spring sale' },
    });
    expect(other.status).toBe(201);
  });

  it('never returns channel tokens', async () => {
    const res = await rt.api('/channels');
    expect(res.text).not.toMatch(/token|demo-token|ciphertext/i);
  });
});

describe('rate limit headers', () => {
  it('are on successes and errors alike', async () => {
    for (const res of [
      await rt.api('/platforms'),
      await rt.api('/nope'),
      await rt.api('/platforms', { key: null }),
    ]) {
      expect(Number(res.headers.get('x-ratelimit-limit'))).toBeGreaterThan(0);
      expect(res.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
      expect(Number(res.headers.get('x-ratelimit-reset'))).toBeGreaterThanOrEqual(1);
      expect(Number(res.headers.get('x-ratelimit-reset'))).toBeLessThanOrEqual(60);
      expect(res.headers.get('x-request-id')).toMatch(REQUEST_ID);
    }
  });
});
