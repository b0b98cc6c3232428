import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseSignatureHeader, signWebhook, verifyWebhook } from '../../functions/shared/verify-webhook.ts';

const secret = 'whsec_0123456789abcdefghijABCDEFGHIJ';
const body = '{"id":"evt_1","type":"post.published","createdAt":"2026-01-01T00:00:00.000Z","data":{"x":"é"}}';
const now = 1_800_000_000;

describe('signWebhook', () => {
  it('is HMAC-SHA256 of "<t>.<raw body>" keyed with the secret, hex, as t=...,v1=...', () => {
    const expected = createHmac('sha256', secret).update(`${now}.${body}`).digest('hex');
    expect(signWebhook(body, secret, now)).toBe(`t=${now},v1=${expected}`);
    expect(signWebhook(Buffer.from(body), secret, now)).toBe(`t=${now},v1=${expected}`);
  });
});

describe('verifyWebhook', () => {
  const header = signWebhook(body, secret, now);

  it('accepts the signature of the raw body within the tolerance', () => {
    expect(verifyWebhook(body, header, [secret], 300, now)).toBe(true);
    expect(verifyWebhook(Buffer.from(body), header, secret, 300, now + 299)).toBe(true);
    expect(verifyWebhook(body, header, [secret], 300, now - 299)).toBe(true);
  });

  it('refuses a timestamp older (or further ahead) than the tolerance', () => {
    expect(verifyWebhook(body, header, [secret], 300, now + 301)).toBe(false);
    expect(verifyWebhook(body, header, [secret], 300, now - 301)).toBe(false);
    expect(verifyWebhook(body, header, [secret], 1000, now + 900)).toBe(true);
  });

  it('refuses another secret, a changed body, a re-encoded body and a changed timestamp', () => {
    expect(verifyWebhook(body, header, ['whsec_other'], 300, now)).toBe(false);
    expect(verifyWebhook(body.replace('evt_1', 'evt_2'), header, [secret], 300, now)).toBe(false);
    expect(verifyWebhook(JSON.stringify(JSON.parse(body), null, 1), header, [secret], 300, now)).toBe(false);
    const shifted = header.replace(`t=${now}`, `t=${now + 1}`);
    expect(verifyWebhook(body, shifted, [secret], 300, now)).toBe(false);
  });

  it('accepts any of several secrets (the roll-over window)', () => {
    expect(verifyWebhook(body, header, ['whsec_new', secret], 300, now)).toBe(true);
    expect(verifyWebhook(body, header, ['whsec_new', 'whsec_newer'], 300, now)).toBe(false);
    expect(verifyWebhook(body, header, [], 300, now)).toBe(false);
    expect(verifyWebhook(body, header, [''], 300, now)).toBe(false);
  });

  it('accepts a header with several v1 signatures if one matches, and refuses malformed headers', () => {
    const v1 = header.split('v1=')[1];
    expect(verifyWebhook(body, `t=${now},v1=${'0'.repeat(64)},v1=${v1}`, [secret], 300, now)).toBe(true);
    for (const bad of [
      undefined,
      null,
      '',
      'garbage',
      `t=${now}`,
      `v1=${v1}`,
      `t=abc,v1=${v1}`,
      `t=${now},v1=${v1?.slice(2)}`,
    ]) {
      expect(verifyWebhook(body, bad, [secret], 300, now), String(bad)).toBe(false);
    }
  });

  it('parses the header parts', () => {
    expect(parseSignatureHeader(` t=${now} , v1=${'A'.repeat(64)} `)).toEqual({
      timestamp: now,
      signatures: ['a'.repeat(64)],
    });
    expect(parseSignatureHeader('t=1')).toBeNull();
  });
});
