/**
 * People on a local runtime, for the user routes' tests: the seeded owner's access token, another
 * account with a user of its own (tenancy), and tokens API Gateway's authorizer must refuse.
 */
import { createHmac } from 'node:crypto';
import { createRequire } from 'node:module';
import { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { generateKeyPair, importJWK, type JWTPayload, SignJWT } from 'jose';
import { cognitoUserDirectory } from '../../functions/adapters/aws/cognito-user-directory.ts';
import type { LocalRuntime, LocalSignIn } from '../../functions/adapters/local/runtime.ts';
import { createAccount, createWorkspace } from '../../functions/core/admin/admin.ts';
import { createOwner } from '../../functions/core/admin/owners.ts';
import { randomBase62 } from '../../functions/domain/ids.ts';

export interface Tokens {
  accessToken: string;
  idToken: string;
  refreshToken: string;
}

/** A call of the user pool's JSON API, as the dashboard makes it (no SDK). */
export const cognitoCall = async <T = any>(
  settings: Pick<LocalSignIn, 'endpoint'>,
  target: string,
  body: unknown,
): Promise<{ status: number; body: T }> => {
  const res = await fetch(`${settings.endpoint}/`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-amz-json-1.1',
      'x-amz-target': `AWSCognitoIdentityProviderService.${target}`,
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as T };
};

/** Signs in with a password (USER_PASSWORD_AUTH); throws unless the pool answers with tokens. */
export const signIn = async (settings: LocalSignIn, email: string, password: string): Promise<Tokens> => {
  const { status, body } = await cognitoCall(settings, 'InitiateAuth', {
    AuthFlow: 'USER_PASSWORD_AUTH',
    ClientId: settings.clientId,
    AuthParameters: { USERNAME: email, PASSWORD: password },
  });
  const result = body?.AuthenticationResult;
  if (status !== 200 || !result)
    throw new Error(`sign-in of ${email} failed: ${status} ${JSON.stringify(body)}`);
  return { accessToken: result.AccessToken, idToken: result.IdToken, refreshToken: result.RefreshToken };
};

/** The seeded demo owner's tokens (the owner of `rt.seed.accountId`). */
export const ownerTokens = async (rt: Pick<LocalRuntime, 'cognito'>): Promise<Tokens> => {
  const settings = await rt.cognito();
  return signIn(settings, settings.owner.email, settings.owner.password);
};

/** `Authorization` for a user route. */
export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/**
 * Another account, with one workspace and an owner of its own, signed in: what a tenancy test
 * holds up against the demo account.
 */
export const otherAccountUser = async (rt: Pick<LocalRuntime, 'cognito' | 'container'>) => {
  const settings = await rt.cognito();
  const { accounts, workspaces, users, clock } = rt.container.deps;
  const client = new CognitoIdentityProviderClient({
    endpoint: settings.endpoint,
    region: settings.region,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    const account = await createAccount({ accounts, clock }, { name: 'Other Company', plan: 'starter' });
    const workspace = await createWorkspace(
      { accounts, workspaces, clock },
      { accountId: account.accountId, name: 'Other Brand' },
    );
    const owner = await createOwner(
      { accounts, workspaces, users, clock, directory: cognitoUserDirectory(client, settings.userPoolId) },
      { email: `other-${randomBase62(10).toLowerCase()}@example.com`, accountId: account.accountId },
      { permanent: true },
    );
    const tokens = await signIn(settings, owner.email, owner.password);
    return {
      accountId: account.accountId,
      workspaceId: workspace.workspaceId,
      userId: owner.userId,
      email: owner.email,
      password: owner.password,
      tokens,
    };
  } finally {
    client.destroy();
  }
};

/** The emulator's signing key (the package's own), to mint tokens it could have issued. */
const emulatorKey = () =>
  importJWK(
    (createRequire(import.meta.url)('cognito-local/lib/keys/cognitoLocal.private.json') as { jwk: object })
      .jwk,
    'RS256',
  );

/**
 * An access token for `sub` as the runtime's pool issues them, with `claims` changed (an `exp` in
 * the past, another `client_id`, an `aud`, another `iss`...), signed with the emulator's key, or
 * with a key of its own (`signedBy: 'stranger'`: the signature cannot be checked).
 */
export const forgedToken = async (
  rt: Pick<LocalRuntime, 'cognito'>,
  sub: string,
  claims: JWTPayload = {},
  options: {
    signedBy?: 'emulator' | 'stranger' /** null: no `kid` in the header. */;
    kid?: string | null;
  } = {},
): Promise<string> => {
  const settings = await rt.cognito();
  const now = Math.floor(Date.now() / 1000);
  const key =
    options.signedBy === 'stranger' ? (await generateKeyPair('RS256')).privateKey : await emulatorKey();
  return new SignJWT({
    sub,
    client_id: settings.clientId,
    token_use: 'access',
    scope: 'aws.cognito.signin.user.admin',
    username: sub,
    iss: settings.issuer,
    iat: now,
    exp: now + 3600,
    ...claims,
  })
    .setProtectedHeader(
      options.kid === null ? { alg: 'RS256' } : { alg: 'RS256', kid: options.kid ?? 'CognitoLocal' },
    )
    .sign(key);
};

/** The current TOTP code (RFC 6238: SHA-1, 30 s, 6 digits) of a base32 secret, as an authenticator app shows it. */
export const totp = (base32Secret: string, at: Date = new Date()): string => {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const char of base32Secret.replace(/=+$/, '').toUpperCase()) {
    bits += alphabet.indexOf(char).toString(2).padStart(5, '0');
  }
  const key = Buffer.from((bits.match(/.{8}/g) ?? []).map((byte) => Number.parseInt(byte, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(at.getTime() / 30_000)));
  const mac = createHmac('sha1', key).update(counter).digest();
  const offset = (mac[mac.length - 1] as number) & 0x0f;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
};
