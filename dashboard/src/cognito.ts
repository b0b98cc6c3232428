/**
 * Sign-in through Cognito's JSON API, called straight from the browser (no AWS SDK in the bundle):
 * `InitiateAuth` with USER_PASSWORD_AUTH or REFRESH_TOKEN_AUTH, and `RespondToAuthChallenge` for
 * NEW_PASSWORD_REQUIRED and SOFTWARE_TOKEN_MFA.
 */
import type { DashboardConfig } from './config.ts';

export interface Tokens {
  accessToken: string;
  idToken: string;
  refreshToken: string;
  /** Epoch milliseconds when the access token expires. */
  expiresAt: number;
}

export type SignInStep =
  | { kind: 'signed_in'; tokens: Tokens }
  | { kind: 'new_password'; session: string; username: string }
  | { kind: 'mfa'; session: string; username: string };

interface AuthResult {
  AccessToken: string;
  IdToken: string;
  RefreshToken?: string;
  ExpiresIn?: number;
}
interface InitiateAuthResponse {
  AuthenticationResult?: AuthResult;
  ChallengeName?: string;
  Session?: string;
  ChallengeParameters?: Record<string, string>;
}

/** An error Cognito answered with (`__type` names it: NotAuthorizedException, CodeMismatchException...). */
export class CognitoError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
    this.name = 'CognitoError';
  }
}

const call = async <T>(
  config: DashboardConfig['cognito'],
  action: string,
  body: Record<string, unknown>,
): Promise<T> => {
  const res = await fetch(config.endpoint.endsWith('/') ? config.endpoint : `${config.endpoint}/`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-amz-json-1.1',
      'X-Amz-Target': `AWSCognitoIdentityProviderService.${action}`,
    },
    body: JSON.stringify(body),
  });
  const json = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok) {
    const type =
      String(json.__type ?? json.code ?? 'Error')
        .split('#')
        .pop() ?? 'Error';
    throw new CognitoError(
      type,
      String(json.message ?? json.Message ?? `Sign-in failed (HTTP ${res.status}).`),
    );
  }
  return json as T;
};

/** A JWT's claims, read without checking it (the API's authorizer checks; this only schedules). */
export const claimsOf = (jwt: string): Record<string, unknown> => {
  try {
    const payload = jwt.split('.')[1] ?? '';
    return JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/'))) as Record<string, unknown>;
  } catch {
    return {};
  }
};

/** When the access token expires: its `exp` claim, else `ExpiresIn` (some emulators leave one out), else an hour. */
const expiryOf = (result: AuthResult): number => {
  const exp = claimsOf(result.AccessToken).exp;
  if (typeof exp === 'number' && Number.isFinite(exp)) return exp * 1000;
  if (typeof result.ExpiresIn === 'number' && Number.isFinite(result.ExpiresIn))
    return Date.now() + result.ExpiresIn * 1000;
  return Date.now() + 3_600_000;
};

const tokensOf = (result: AuthResult, refreshToken?: string): Tokens => ({
  accessToken: result.AccessToken,
  idToken: result.IdToken,
  refreshToken: result.RefreshToken ?? refreshToken ?? '',
  expiresAt: expiryOf(result),
});

const stepOf = (answer: InitiateAuthResponse, username: string, refreshToken?: string): SignInStep => {
  if (answer.AuthenticationResult)
    return { kind: 'signed_in', tokens: tokensOf(answer.AuthenticationResult, refreshToken) };
  const session = answer.Session ?? '';
  const name = answer.ChallengeParameters?.USER_ID_FOR_SRP ?? username;
  if (answer.ChallengeName === 'NEW_PASSWORD_REQUIRED')
    return { kind: 'new_password', session, username: name };
  if (answer.ChallengeName === 'SOFTWARE_TOKEN_MFA') return { kind: 'mfa', session, username: name };
  throw new CognitoError(
    'UnsupportedChallenge',
    `This sign-in step is not supported here: ${answer.ChallengeName}.`,
  );
};

/** Email and password: signed in, or the next challenge to answer. */
export const signIn = async (config: DashboardConfig['cognito'], email: string, password: string) =>
  stepOf(
    await call<InitiateAuthResponse>(config, 'InitiateAuth', {
      AuthFlow: 'USER_PASSWORD_AUTH',
      ClientId: config.clientId,
      AuthParameters: { USERNAME: email, PASSWORD: password },
    }),
    email,
  );

/** Answers NEW_PASSWORD_REQUIRED (first sign-in of an invited user) or SOFTWARE_TOKEN_MFA (a TOTP code). */
export const answerChallenge = async (
  config: DashboardConfig['cognito'],
  step: Extract<SignInStep, { kind: 'new_password' | 'mfa' }>,
  answer: string,
) =>
  stepOf(
    await call<InitiateAuthResponse>(config, 'RespondToAuthChallenge', {
      ClientId: config.clientId,
      Session: step.session,
      ...(step.kind === 'new_password'
        ? {
            ChallengeName: 'NEW_PASSWORD_REQUIRED',
            ChallengeResponses: { USERNAME: step.username, NEW_PASSWORD: answer },
          }
        : {
            ChallengeName: 'SOFTWARE_TOKEN_MFA',
            ChallengeResponses: { USERNAME: step.username, SOFTWARE_TOKEN_MFA_CODE: answer },
          }),
    }),
    step.username,
  );

/** New access and id tokens from the refresh token (which Cognito does not rotate here). */
export const refresh = async (config: DashboardConfig['cognito'], refreshToken: string): Promise<Tokens> => {
  const step = stepOf(
    await call<InitiateAuthResponse>(config, 'InitiateAuth', {
      AuthFlow: 'REFRESH_TOKEN_AUTH',
      ClientId: config.clientId,
      AuthParameters: { REFRESH_TOKEN: refreshToken },
    }),
    '',
    refreshToken,
  );
  if (step.kind !== 'signed_in') throw new CognitoError('NotAuthorizedException', 'The session has ended.');
  return step.tokens;
};
