/**
 * Sign-in for people on the local runtime: the Cognito emulator with its pool, app client and
 * seeded owner, kept across restarts; the stand-in for API Gateway's JWT authorizer on the user
 * routes (as strict as AWS's, with its own 401); and the pipeline's user mode behind it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { cognitoUserDirectory } from '../../functions/adapters/aws/cognito-user-directory.ts';
import { type LocalRuntime, startLocalRuntime } from '../../functions/adapters/local/runtime.ts';
import type { RouteDef } from '../../functions/http/routes.ts';
import {
  bearer,
  cognitoCall,
  forgedToken,
  otherAccountUser,
  ownerTokens,
  signIn,
  totp,
} from '../support/users.ts';

vi.mock(import('../../functions/http/routes.ts'), async (original) => ({
  ...(await original()),
  userRoutes: <RouteDef[]>[
    {
      method: 'GET',
      path: '/v1/account/echo',
      entry: 'test/integration/fixtures/user-echo.ts',
      grants: ['table:read', 'table:write'],
    },
    {
      method: 'GET',
      path: '/v1/account/workspaces/{workspaceId}/echo',
      entry: 'test/integration/fixtures/user-echo.ts',
      grants: ['table:read', 'table:write'],
    },
  ],
}));

const dataDir = mkdtempSync(join(tmpdir(), 'herald-sign-in-'));
const tableName = `herald-sign-in-${process.pid}-${Date.now()}`;
const start = () =>
  startLocalRuntime({
    dataDir,
    port: 0,
    dynamoEndpoint: inject('dynamoEndpoint'),
    tableName,
    rateLimitPerMinute: 100_000,
  });
let rt: LocalRuntime;

beforeAll(async () => {
  rt = await start();
});
afterAll(async () => {
  await rt?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const get = async (path: string, headers: Record<string, string> = {}) => {
  const res = await fetch(`${rt.url}${path}`, { headers });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : null };
};

const expectGatewayRefusal = (res: Awaited<ReturnType<typeof get>>) => {
  expect(res.status).toBe(401);
  expect(res.text).toBe('{"message":"Unauthorized"}');
  expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
};

describe('the local user pool', () => {
  it('starts on first need, with a pool and client, and the owner of the demo account seeded in seed.json', async () => {
    const since = performance.now();
    const settings = await rt.cognito();
    console.info(`Cognito emulator, pool and owner ready in ${Math.round(performance.now() - since)} ms`);
    expect(settings.userPoolId).toMatch(/^local_/);
    expect(settings.issuer).toBe(`${settings.endpoint}/${settings.userPoolId}`);
    expect(settings.owner.email).toBe('owner@herald.local');
    expect(settings.owner.password).toMatch(/^(?=.*[A-Z])(?=.*[a-z])(?=.*\d)(?=.*[^A-Za-z0-9]).{12,}$/);
    const seed = JSON.parse(readFileSync(join(dataDir, 'seed.json'), 'utf8'));
    expect(seed.owner).toEqual(settings.owner);
    expect(rt.seed.owner).toEqual(settings.owner);
    const info = JSON.parse(readFileSync(join(dataDir, 'runtime.json'), 'utf8'));
    expect(info.cognito).toEqual({
      endpoint: settings.endpoint,
      region: settings.region,
      userPoolId: settings.userPoolId,
      clientId: settings.clientId,
    });
  });

  it("signs the owner in, and the token's claims are what Cognito's access tokens carry", async () => {
    const settings = await rt.cognito();
    const { accessToken } = await ownerTokens(rt);
    const res = await get('/v1/account/echo', bearer(accessToken));
    expect(res.status).toBe(200);
    expect(res.body.user).toEqual({
      userId: settings.owner.userId,
      accountId: rt.seed.accountId,
      email: 'owner@herald.local',
    });
    expect(res.body.auth).toBeNull();
    expect(res.body.claims).toMatchObject({
      sub: settings.owner.userId,
      client_id: settings.clientId,
      token_use: 'access',
      iss: settings.issuer,
      exp: expect.stringMatching(/^\d+$/),
    });
    // The token alone, without "Bearer ", is accepted too (as API Gateway does).
    expect((await get('/v1/account/echo', { authorization: accessToken })).status).toBe(200);
  });

  it("gives a workspace of the user's account as a write scope, and 404 for another account's", async () => {
    const owner = await ownerTokens(rt);
    const other = await otherAccountUser(rt);
    const ours = await get(
      `/v1/account/workspaces/${rt.seed.workspaces.main}/echo`,
      bearer(owner.accessToken),
    );
    expect(ours.status).toBe(200);
    expect(ours.body.auth).toMatchObject({
      accountId: rt.seed.accountId,
      workspaceId: rt.seed.workspaces.main,
      mode: 'live',
      permission: 'write',
    });
    const theirs = await get(`/v1/account/workspaces/${other.workspaceId}/echo`, bearer(owner.accessToken));
    expect(theirs.status).toBe(404);
    expect(theirs.body.error.code).toBe('not_found');
    const back = await get(
      `/v1/account/workspaces/${rt.seed.workspaces.main}/echo`,
      bearer(other.tokens.accessToken),
    );
    expect(back.status).toBe(404);
    const own = await get(
      `/v1/account/workspaces/${other.workspaceId}/echo`,
      bearer(other.tokens.accessToken),
    );
    expect(own.body.auth.accountId).toBe(other.accountId);
  });

  it("answers API Gateway's 401 for a missing, malformed, expired, foreign or misdirected token", async () => {
    const { owner } = await rt.cognito();
    const sub = owner.userId;
    expectGatewayRefusal(await get('/v1/account/echo'));
    expectGatewayRefusal(await get('/v1/account/echo', { authorization: 'Bearer not-a-jwt' }));
    // An API key is no token: the user routes never take one.
    expectGatewayRefusal(await get('/v1/account/echo', { 'x-api-key': rt.seed.keys.live }));
    expectGatewayRefusal(await get('/v1/account/echo', bearer(rt.seed.keys.live)));
    const now = Math.floor(Date.now() / 1000);
    const refused = {
      expired: await forgedToken(rt, sub, { iat: now - 7200, exp: now - 60 }),
      notYet: await forgedToken(rt, sub, { nbf: now + 600 }),
      issuedLater: await forgedToken(rt, sub, { iat: now + 600 }),
      otherClient: await forgedToken(rt, sub, { client_id: 'another-app-client' }),
      // With an `aud`, API Gateway reads it instead of client_id.
      otherAudience: await forgedToken(rt, sub, { aud: 'another-app-client' }),
      otherIssuer: await forgedToken(rt, sub, {
        iss: 'https://cognito-idp.us-east-1.amazonaws.com/us-east-1_x',
      }),
      strangerKey: await forgedToken(rt, sub, {}, { signedBy: 'stranger' }),
      noKid: await forgedToken(rt, sub, {}, { kid: null }),
    };
    for (const [why, token] of Object.entries(refused)) {
      const res = await get('/v1/account/echo', bearer(token));
      expect(res.status, why).toBe(401);
      expect(res.text, why).toBe('{"message":"Unauthorized"}');
    }
    const expired = await get('/v1/account/echo', bearer(refused.expired));
    expect(expired.headers.get('www-authenticate')).toContain('error="invalid_token"');
    // The same claims, properly made, pass: each refusal above is for its one change.
    expect((await get('/v1/account/echo', bearer(await forgedToken(rt, sub)))).status).toBe(200);
  });

  it('refuses an ID token in the envelope (it passes the audience check) and a person with no account with 403', async () => {
    const settings = await rt.cognito();
    const { idToken } = await ownerTokens(rt);
    const id = await get('/v1/account/echo', bearer(idToken));
    expect(id.status).toBe(401);
    expect(id.body.error.code).toBe('unauthorized');
    const client = new CognitoIdentityProviderClient({
      endpoint: settings.endpoint,
      region: settings.region,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    const email = `nobody-${Date.now()}@example.com`;
    await cognitoUserDirectory(client, settings.userPoolId).createPerson({
      email,
      password: 'Nobody-Passw0rd!',
      permanent: true,
    });
    client.destroy();
    const stranger = await signIn(settings, email, 'Nobody-Passw0rd!');
    const res = await get('/v1/account/echo', bearer(stranger.accessToken));
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'forbidden', message: 'This user has no Herald account.' });
  });

  it('lets a person turn TOTP MFA on, and then asks for the code at sign-in (SOFTWARE_TOKEN_MFA)', async () => {
    const settings = await rt.cognito();
    const pool = await cognitoCall(settings, 'DescribeUserPool', { UserPoolId: settings.userPoolId });
    expect(pool.body.UserPool.MfaConfiguration).toBe('OPTIONAL');
    const other = await otherAccountUser(rt);
    const accessToken = other.tokens.accessToken;
    const { body: associated } = await cognitoCall(settings, 'AssociateSoftwareToken', {
      AccessToken: accessToken,
    });
    expect(associated.SecretCode).toEqual(expect.any(String));
    const verified = await cognitoCall(settings, 'VerifySoftwareToken', {
      AccessToken: accessToken,
      UserCode: totp(associated.SecretCode),
    });
    expect(verified.body.Status).toBe('SUCCESS');
    await cognitoCall(settings, 'SetUserMFAPreference', {
      AccessToken: accessToken,
      SoftwareTokenMfaSettings: { Enabled: true, PreferredMfa: true },
    });
    const first = await cognitoCall(settings, 'InitiateAuth', {
      AuthFlow: 'USER_PASSWORD_AUTH',
      ClientId: settings.clientId,
      AuthParameters: { USERNAME: other.email, PASSWORD: other.password },
    });
    expect(first.body.ChallengeName).toBe('SOFTWARE_TOKEN_MFA');
    const answered = await cognitoCall(settings, 'RespondToAuthChallenge', {
      ChallengeName: 'SOFTWARE_TOKEN_MFA',
      ClientId: settings.clientId,
      Session: first.body.Session,
      ChallengeResponses: { USERNAME: other.email, SOFTWARE_TOKEN_MFA_CODE: totp(associated.SecretCode) },
    });
    const token = answered.body.AuthenticationResult?.AccessToken;
    expect(token, JSON.stringify(answered.body)).toEqual(expect.any(String));
    expect((await get('/v1/account/echo', bearer(token))).body.user.userId).toBe(other.userId);
  });

  it('keeps the pool, the client and the owner across a restart', async () => {
    const before = await rt.cognito();
    const wrong = await cognitoCall(before, 'InitiateAuth', {
      AuthFlow: 'USER_PASSWORD_AUTH',
      ClientId: before.clientId,
      AuthParameters: { USERNAME: before.owner.email, PASSWORD: 'Wrong-Passw0rd!' },
    });
    expect(wrong.status).toBe(400);
    await rt.stop();
    rt = await start();
    const after = await rt.cognito();
    expect({ ...after, endpoint: undefined, issuer: undefined }).toEqual({
      ...before,
      endpoint: undefined,
      issuer: undefined,
    });
    const { accessToken } = await ownerTokens(rt);
    expect((await get('/v1/account/echo', bearer(accessToken))).body.user.userId).toBe(before.owner.userId);
  });
});
