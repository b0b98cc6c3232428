import { describe, expect, it } from 'vitest';
import { blueskyAccountOf, blueskyTokensOf } from '../../functions/platforms/bluesky/oauth.ts';
import { instagramShortToken } from '../../functions/platforms/instagram/oauth.ts';
import { classifyOAuthFailure, tokenSetOf } from '../../functions/platforms/oauth-http.ts';

/**
 * The parsing of each network's token answers and error bodies, on the shapes their documentation
 * shows (values shortened). The simulators answer in these shapes too; these tests pin the parsing
 * to the real networks' shapes, independently of the simulators.
 */
const NOW = new Date('2026-11-25T12:00:00.000Z');
const at = (seconds: number) => new Date(NOW.getTime() + seconds * 1000).toISOString();

describe('token answers as TokenSets', () => {
  it.each([
    {
      network: 'X',
      body: {
        token_type: 'bearer',
        expires_in: 7200,
        access_token: 'X-AT',
        scope: 'tweet.read tweet.write users.read offline.access',
        refresh_token: 'X-RT',
      },
      expected: {
        accessToken: 'X-AT',
        refreshToken: 'X-RT',
        expiresAt: at(7200),
        refreshExpiresAt: null,
        scopes: ['tweet.read', 'tweet.write', 'users.read', 'offline.access'],
      },
    },
    {
      network: 'LinkedIn (comma-separated scopes, refresh token with its own lifetime)',
      body: {
        access_token: 'LI-AT',
        expires_in: 5183999,
        refresh_token: 'LI-RT',
        refresh_token_expires_in: 31535999,
        scope: 'openid,profile,w_member_social',
      },
      expected: {
        accessToken: 'LI-AT',
        refreshToken: 'LI-RT',
        expiresAt: at(5183999),
        refreshExpiresAt: at(31535999),
        scopes: ['openid', 'profile', 'w_member_social'],
      },
    },
    {
      network: 'TikTok (refresh_expires_in)',
      body: {
        access_token: 'act.1',
        expires_in: 7200,
        open_id: 'afd97af1',
        refresh_expires_in: 15552000,
        refresh_token: 'rft.1',
        scope: 'user.info.basic,video.publish',
        token_type: 'Bearer',
      },
      expected: {
        accessToken: 'act.1',
        refreshToken: 'rft.1',
        expiresAt: at(7200),
        refreshExpiresAt: at(15552000),
        scopes: ['user.info.basic', 'video.publish'],
      },
    },
    {
      network: 'Pinterest',
      body: {
        access_token: 'pina_1',
        refresh_token: 'pinr_1',
        response_type: 'authorization_code',
        token_type: 'bearer',
        expires_in: 2592000,
        refresh_token_expires_in: 31536000,
        scope: 'boards:read pins:write',
      },
      expected: {
        accessToken: 'pina_1',
        refreshToken: 'pinr_1',
        expiresAt: at(2592000),
        refreshExpiresAt: at(31536000),
        scopes: ['boards:read', 'pins:write'],
      },
    },
    {
      network: 'Google (YouTube), no refresh token on a refresh',
      body: {
        access_token: 'ya29.a0',
        expires_in: 3599,
        scope: 'https://www.googleapis.com/auth/youtube.upload',
        token_type: 'Bearer',
      },
      expected: {
        accessToken: 'ya29.a0',
        refreshToken: null,
        expiresAt: at(3599),
        refreshExpiresAt: null,
        scopes: ['https://www.googleapis.com/auth/youtube.upload'],
      },
    },
    {
      network: 'Vimeo (no expiry)',
      body: {
        access_token: 'vimeo1',
        token_type: 'bearer',
        scope: 'public private upload',
        user: { uri: '/users/1' },
      },
      expected: {
        accessToken: 'vimeo1',
        refreshToken: null,
        expiresAt: null,
        refreshExpiresAt: null,
        scopes: ['public', 'private', 'upload'],
      },
    },
    {
      network: 'Instagram / Threads long-lived (string expires_in tolerated, no scope)',
      body: { access_token: 'IGQV', token_type: 'bearer', expires_in: '5183944' },
      expected: {
        accessToken: 'IGQV',
        refreshToken: null,
        expiresAt: at(5183944),
        refreshExpiresAt: null,
        scopes: [],
      },
    },
  ])('$network', ({ body, expected }) => {
    expect(tokenSetOf('Net', body, { now: NOW })).toEqual({ ...expected, issuedAt: NOW.toISOString() });
  });

  it('a refresh that returns no refresh token keeps the previous one and its expiry', () => {
    const tokens = tokenSetOf(
      'Net',
      { access_token: 'a2', expires_in: 60 },
      { now: NOW, previousRefreshToken: 'r1', previousRefreshExpiresAt: at(999), fallbackScopes: ['s'] },
    );
    expect(tokens).toMatchObject({ refreshToken: 'r1', refreshExpiresAt: at(999), scopes: ['s'] });
  });

  it('an answer without access_token is a clear permanent error', () => {
    expect(() => tokenSetOf('Net', { token_type: 'bearer' })).toThrow(/Net answered without access_token/);
  });

  it('Instagram code exchange: the data-wrapped shape and the flat one', () => {
    expect(
      instagramShortToken({
        data: [
          {
            access_token: 'IGS',
            user_id: '1020',
            permissions: 'instagram_business_basic,instagram_business_content_publish',
          },
        ],
      }),
    ).toEqual({
      accessToken: 'IGS',
      userId: '1020',
      scopes: ['instagram_business_basic', 'instagram_business_content_publish'],
    });
    expect(
      instagramShortToken({
        access_token: 'IGS',
        user_id: 17841405793187218,
        permissions: ['instagram_business_basic'],
      }),
    ).toEqual({
      accessToken: 'IGS',
      userId: '17841405793187218',
      scopes: ['instagram_business_basic'],
    });
  });

  it('Bluesky sessions: expiries from the JWTs, the PDS from the DID document', () => {
    const jwt = (payload: object) => `h.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.s`;
    const body = {
      did: 'did:plc:abc',
      handle: 'alice.bsky.social',
      accessJwt: jwt({ scope: 'com.atproto.appPass', sub: 'did:plc:abc', exp: NOW.getTime() / 1000 + 7200 }),
      refreshJwt: jwt({
        scope: 'com.atproto.refresh',
        sub: 'did:plc:abc',
        exp: NOW.getTime() / 1000 + 90 * 86400,
      }),
      didDoc: {
        id: 'did:plc:abc',
        service: [
          {
            id: '#atproto_pds',
            type: 'AtprotoPersonalDataServer',
            serviceEndpoint: 'https://morel.us-east.host.bsky.network/',
          },
        ],
      },
      active: true,
    };
    expect(blueskyTokensOf(body, NOW)).toMatchObject({
      expiresAt: at(7200),
      refreshExpiresAt: at(90 * 86400),
      scopes: ['com.atproto.appPass'],
    });
    expect(blueskyAccountOf(body, 'https://bsky.social')).toEqual({
      remoteAccountId: 'did:plc:abc',
      name: 'alice.bsky.social',
      serviceUrl: 'https://morel.us-east.host.bsky.network',
    });
    expect(blueskyAccountOf({ did: 'did:plc:abc', handle: 'a' }, 'https://pds.example')).toMatchObject({
      serviceUrl: 'https://pds.example',
    });
  });
});

describe('OAuth failures as NetworkErrors', () => {
  const headers = (values: Record<string, string> = {}) => new Headers(values);
  it.each([
    {
      name: 'X refused refresh token (400 invalid_request)',
      status: 400,
      body: { error: 'invalid_request', error_description: 'Value passed for the token was invalid.' },
      grant: true,
      kind: 'reconnect',
    },
    {
      name: 'RFC 6749 invalid_grant',
      status: 400,
      body: { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' },
      grant: true,
      kind: 'reconnect',
    },
    {
      name: 'LinkedIn refused refresh token',
      status: 400,
      body: {
        error: 'invalid_request',
        error_description:
          'The provided authorization grant or refresh token is invalid, expired or revoked.',
      },
      grant: true,
      kind: 'reconnect',
    },
    {
      name: 'Bluesky expired refresh JWT',
      status: 400,
      body: { error: 'ExpiredToken', message: 'Token has expired' },
      grant: true,
      kind: 'reconnect',
    },
    {
      name: 'TikTok invalid_grant',
      status: 400,
      body: {
        error: 'invalid_grant',
        error_description: 'Refresh token is invalid or expired.',
        log_id: '2026',
      },
      grant: true,
      kind: 'reconnect',
    },
    {
      name: 'Graph expired token on an exchange (190/463)',
      status: 400,
      body: {
        error: {
          message: 'Error validating access token: Session has expired.',
          type: 'OAuthException',
          code: 190,
          error_subcode: 463,
        },
      },
      grant: true,
      kind: 'reconnect',
    },
    {
      name: 'Instagram bad code',
      status: 400,
      body: { error_type: 'OAuthException', code: 400, error_message: 'Invalid authorization code' },
      grant: true,
      kind: 'reconnect',
    },
    {
      name: 'invalid_client is the app configuration, not the grant',
      status: 401,
      body: { error: 'invalid_client', error_description: 'Client authentication failed' },
      grant: true,
      kind: 'permanent',
    },
    {
      name: 'X unauthorized_client',
      status: 401,
      body: { error: 'unauthorized_client', error_description: 'Missing valid authorization header' },
      grant: true,
      kind: 'permanent',
    },
    {
      name: 'Graph bad app secret (code 1)',
      status: 400,
      body: { error: { message: 'Error validating client secret.', type: 'OAuthException', code: 1 } },
      grant: true,
      kind: 'permanent',
    },
    { name: 'Google 503', status: 503, body: { error: 'backend_error' }, grant: true, kind: 'transient' },
    {
      name: '429',
      status: 429,
      body: { error: 'RateLimitExceeded', message: 'Rate Limit Exceeded' },
      grant: true,
      kind: 'transient',
    },
    {
      name: 'a 400 on an identity call is the request, not the grant',
      status: 400,
      body: { error: { code: 400, message: 'No filter selected.', status: 'INVALID_ARGUMENT' } },
      grant: false,
      kind: 'permanent',
    },
  ])('$name → $kind', ({ status, body, grant, kind }) => {
    const error = classifyOAuthFailure('Net', status, body, headers(), grant);
    expect(error.kind).toBe(kind);
    expect(error.details.status).toBe(status);
    expect(error.message).toMatch(/^Net /);
  });

  it('an access token refused on an identity call is tokenExpired: the refresh decides', () => {
    for (const [status, body] of [
      [401, { title: 'Unauthorized', status: 401, detail: 'Unauthorized' }],
      [400, { error: 'ExpiredToken', message: 'Token has expired' }],
      [
        401,
        {
          error: {
            code: 'access_token_invalid',
            message: 'The access token is invalid or not found in the request.',
          },
        },
      ],
      [
        400,
        { error: { message: 'Session has expired', type: 'OAuthException', code: 190, error_subcode: 463 } },
      ],
    ] as const) {
      expect(classifyOAuthFailure('Net', status, body, headers(), false)).toMatchObject({
        kind: 'reconnect',
        details: { tokenExpired: true },
      });
    }
  });

  it('429 carries the wait and rateLimited', () => {
    const error = classifyOAuthFailure('Net', 429, {}, headers({ 'retry-after': '30' }), true);
    expect(error.details).toEqual({ status: 429, rateLimited: true, retryAfterSeconds: 30 });
  });
});
