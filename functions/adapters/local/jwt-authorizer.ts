/**
 * API Gateway's JWT authorizer, played on this machine for the user routes (/v1/account/...): the
 * same checks, in the same order, and the same refusal. API Gateway takes the token from the
 * Authorization header (alone or after `Bearer `), checks its RSA signature with the issuer's
 * JWKS (the key named by `kid`), then `iss`, `aud` (or `client_id` when the token has no `aud`)
 * against the configured audience, `exp`, `nbf` and `iat` against the current time, and hands
 * the verified claims to the function in `requestContext.authorizer.jwt.claims`. Anything else is
 * its own answer, not our envelope: 401 `{"message":"Unauthorized"}` with `www-authenticate`.
 */
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { createRemoteJWKSet, decodeProtectedHeader, errors, type JWTPayload, jwtVerify } from 'jose';

/** What the authorizer is configured with (the stack's `HttpJwtAuthorizer`). */
export interface JwtAuthorizerConfig {
  /** The user pool's issuer URL (`iss` must equal it); its JWKS is `<issuer>/.well-known/jwks.json`. */
  issuer: string;
  /** The app client ids a token may be for (`aud`, else `client_id`). */
  audience: string[];
}

/** The claims as API Gateway hands them to the function: every value a string. */
export type VerifiedClaims = Record<string, string>;

/** API Gateway's refusal of a missing or invalid token, with the reason in `www-authenticate`. */
export const unauthorized = (description?: string): APIGatewayProxyStructuredResultV2 => ({
  statusCode: 401,
  headers: {
    'Content-Type': 'application/json',
    'www-authenticate': description
      ? `Bearer scope="" error="invalid_token" error_description="${description}"`
      : 'Bearer',
  },
  body: JSON.stringify({ message: 'Unauthorized' }),
});

/** A claim's value as API Gateway writes it: numbers as text, arrays as `[a b]`. */
const asText = (value: unknown): string =>
  typeof value === 'string'
    ? value
    : Array.isArray(value)
      ? `[${value.map(asText).join(' ')}]`
      : typeof value === 'object' && value !== null
        ? JSON.stringify(value)
        : String(value);

const tokenOf = (authorization: string | undefined): string | null => {
  const value = authorization?.trim();
  if (!value) return null;
  const token = /^bearer\s+/i.test(value) ? value.replace(/^bearer\s+/i, '') : value;
  return token.split('.').length === 3 ? token : null;
};

const audienceOf = (payload: JWTPayload): string[] => {
  // `client_id` is looked at only when the token has no `aud` (an access token).
  if (payload.aud !== undefined) return Array.isArray(payload.aud) ? payload.aud : [payload.aud];
  return typeof payload.client_id === 'string' ? [payload.client_id] : [];
};

/**
 * The authorizer: the verified claims of the request's Authorization header, or the answer API
 * Gateway gives instead (a 401).
 */
export const jwtAuthorizer = (config: JwtAuthorizerConfig, now: () => Date = () => new Date()) => {
  const keys = createRemoteJWKSet(new URL(`${config.issuer}/.well-known/jwks.json`));
  return async (
    authorization: string | undefined,
  ): Promise<{ claims: VerifiedClaims } | { refused: APIGatewayProxyStructuredResultV2 }> => {
    const token = tokenOf(authorization);
    if (!token) return { refused: unauthorized() };
    // API Gateway picks the key by `kid` alone (jose would try a lone key for a token without one).
    try {
      if (typeof decodeProtectedHeader(token).kid !== 'string')
        return { refused: unauthorized('the token has no kid') };
    } catch {
      return { refused: unauthorized('the token is not valid') };
    }
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, {
        algorithms: ['RS256', 'RS384', 'RS512'],
        issuer: config.issuer,
        currentDate: now(),
        clockTolerance: 0,
        requiredClaims: ['exp'],
      }));
    } catch (error) {
      if (error instanceof errors.JWTExpired) return { refused: unauthorized('the token has expired') };
      if (error instanceof errors.JWTClaimValidationFailed && error.claim === 'iss') {
        return { refused: unauthorized('the token does not have a valid issuer') };
      }
      return { refused: unauthorized('the token is not valid') };
    }
    const seconds = now().getTime() / 1000;
    if (typeof payload.iat === 'number' && payload.iat > seconds) {
      return { refused: unauthorized('the token is not valid yet') };
    }
    if (!audienceOf(payload).some((aud) => config.audience.includes(aud))) {
      return { refused: unauthorized('the token does not have a valid audience') };
    }
    return {
      claims: Object.fromEntries(Object.entries(payload).map(([name, value]) => [name, asText(value)])),
    };
  };
};

export type JwtAuthorizer = ReturnType<typeof jwtAuthorizer>;
