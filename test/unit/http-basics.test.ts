import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { authorize, generateSecret, hashSecret, keyFromHeaders } from '../../functions/core/auth/api-keys.ts';
import { ApiError, ERROR_CATALOGUE, errorBody } from '../../functions/domain/errors.ts';
import { allowedMethods } from '../../functions/http/fallback.ts';
import { fieldPath, zodErrorToApiError } from '../../functions/shared/validation.ts';

describe('error catalogue', () => {
  it('gives every code a 4xx/5xx status and a message', () => {
    for (const [code, entry] of Object.entries(ERROR_CATALOGUE)) {
      expect(entry.status, code).toBeGreaterThanOrEqual(400);
      expect(entry.status, code).toBeLessThan(600);
      expect(entry.message.length, code).toBeGreaterThan(10);
    }
    expect(ERROR_CATALOGUE.rate_limited.status).toBe(429);
    expect(ERROR_CATALOGUE.quota_exceeded.status).toBe(402);
  });

  it('builds the envelope, with field only when given', () => {
    expect(errorBody(new ApiError('not_found'), 'req_1')).toEqual({
      error: { code: 'not_found', message: ERROR_CATALOGUE.not_found.message, requestId: 'req_1' },
    });
    expect(errorBody(new ApiError('validation_failed', 'bad', 'a.b'), 'req_2').error.field).toBe('a.b');
  });
});

describe('field paths', () => {
  it('writes array indexes in brackets', () => {
    expect(fieldPath(['channels', 1, 'blocks', 0, 'content'])).toBe('channels[1].blocks[0].content');
    expect(fieldPath([])).toBe('');
    expect(fieldPath([0, 'a'])).toBe('[0].a');
  });

  it('turns the first zod issue into validation_failed with its field', () => {
    const schema = z.strictObject({ channels: z.array(z.strictObject({ id: z.string() })) });
    const typed = schema.safeParse({ channels: [{ id: 'a' }, { id: 3 }] });
    expect(typed.success).toBe(false);
    const error = zodErrorToApiError((typed as { error: z.ZodError }).error);
    expect(error.code).toBe('validation_failed');
    expect(error.field).toBe('channels[1].id');
    const extra = schema.safeParse({ channels: [], other: 1 });
    expect(zodErrorToApiError((extra as { error: z.ZodError }).error).field).toBe('other');
  });
});

describe('API keys', () => {
  it('generates prefixed secrets and stores only their hash', () => {
    const live = generateSecret('live');
    expect(live.secret).toMatch(/^sk_live_[0-9A-Za-z]{32}$/);
    expect(live.secretHash).toBe(hashSecret(live.secret));
    expect(live.secretHash).not.toContain(live.secret.slice(8));
    expect(live.hint).toBe(live.secret.slice(0, 12));
    expect(generateSecret('test').secret).toMatch(/^sk_test_/);
    expect(generateSecret('live').secret).not.toBe(live.secret);
  });

  it('reads the key from x-api-key or a Bearer header', () => {
    expect(keyFromHeaders({ 'x-api-key': ' sk_live_a ' })).toBe('sk_live_a');
    expect(keyFromHeaders({ authorization: 'Bearer sk_live_b' })).toBe('sk_live_b');
    expect(keyFromHeaders({ authorization: 'bearer   sk_live_c  ' })).toBe('sk_live_c');
    expect(keyFromHeaders({ authorization: 'Basic abc' })).toBeNull();
    expect(keyFromHeaders({})).toBeNull();
  });

  it('lets read keys only read', () => {
    const auth = {
      keyId: 'k',
      accountId: 'a',
      workspaceId: 'w',
      mode: 'live' as const,
      permission: 'read' as const,
    };
    expect(() => authorize(auth, 'GET')).not.toThrow();
    expect(() => authorize(auth, 'POST')).toThrow(expect.objectContaining({ code: 'forbidden' }));
    expect(() => authorize({ ...auth, permission: 'write' }, 'DELETE')).not.toThrow();
  });
});

describe('fallback', () => {
  it('knows which methods a path has', () => {
    expect(allowedMethods('/v1/tags')).toEqual(['GET', 'POST']);
    expect(allowedMethods('/v1/platforms/')).toEqual(['GET']);
    expect(allowedMethods('/v1/unknown')).toEqual([]);
  });
});
