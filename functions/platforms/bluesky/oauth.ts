import type { NetworkAccount, NetworkAuth, NetworkAuthConfig, TokenSet } from '../../ports/network-auth.ts';
import { NetworkError } from '../../ports/network-client.ts';
import { baseUrlOf } from '../network-http.ts';
import { oauthCall, requireString } from '../oauth-http.ts';

/**
 * Bluesky with an app password (what automation uses): `com.atproto.server.createSession`
 * `{ identifier, password }` on the account's PDS once per connect (the PDS allows 30 per 5
 * minutes, 300 a day), then `refreshSession` with the refreshJwt as bearer (it returns a new
 * refreshJwt: the old one must not be used again), `getSession` to identify, `deleteSession` to
 * revoke. The access JWT lives about 2 hours, the refresh JWT 90 days; both expiries are read from
 * the JWTs' `exp` claims. The account's PDS is taken from its DID document (`#atproto_pds`), so
 * accounts on other PDSs keep working after the first call.
 */
export const BLUESKY_DEFAULT_SERVICE = 'https://bsky.social';

const jwtClaims = (token: string): Record<string, unknown> => {
  try {
    const payload = JSON.parse(
      Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'),
    ) as unknown;
    return payload !== null && typeof payload === 'object' ? (payload as Record<string, unknown>) : {};
  } catch {
    return {};
  }
};

const expiryOf = (token: string): string | null => {
  const exp = jwtClaims(token).exp;
  return typeof exp === 'number' ? new Date(exp * 1000).toISOString() : null;
};

/** The session answer (createSession, refreshSession) as tokens. */
export const blueskyTokensOf = (body: unknown, now: Date = new Date()): TokenSet => {
  const accessToken = requireString('Bluesky', body, 'accessJwt');
  const refreshToken = requireString('Bluesky', body, 'refreshJwt');
  const scope = jwtClaims(accessToken).scope;
  return {
    accessToken,
    refreshToken,
    expiresAt: expiryOf(accessToken),
    refreshExpiresAt: expiryOf(refreshToken),
    scopes: typeof scope === 'string' ? [scope] : ['com.atproto.appPass'],
    issuedAt: now.toISOString(),
  };
};

/** The account of a session answer: its DID, handle and PDS (from the DID document when it has one). */
export const blueskyAccountOf = (body: unknown, pds: string): NetworkAccount => {
  const services = (body as { didDoc?: { service?: unknown } } | null)?.didDoc?.service;
  let serviceUrl = pds;
  if (Array.isArray(services)) {
    for (const service of services) {
      const s = service as { id?: unknown; serviceEndpoint?: unknown };
      if (
        typeof s.id === 'string' &&
        s.id.endsWith('#atproto_pds') &&
        typeof s.serviceEndpoint === 'string'
      ) {
        serviceUrl = baseUrlOf(s.serviceEndpoint);
      }
    }
  }
  return {
    remoteAccountId: requireString('Bluesky', body, 'did'),
    name: requireString('Bluesky', body, 'handle'),
    serviceUrl,
  };
};

export const blueskyAuth = (config: NetworkAuthConfig): NetworkAuth => {
  const configured = config.baseUrls.bluesky ? baseUrlOf(config.baseUrls.bluesky) : null;
  /** The PDS to call: the account's own, else the configured base (the simulator locally), else bsky.social. */
  const pds = (serviceUrl?: string | null) => {
    const given = serviceUrl ? baseUrlOf(serviceUrl) : null;
    if (given && given !== BLUESKY_DEFAULT_SERVICE) return given;
    return configured ?? BLUESKY_DEFAULT_SERVICE;
  };
  const common = { network: 'Bluesky', timeoutMs: config.timeoutMs };
  return {
    platform: 'bluesky',
    kind: 'app_password',
    usesPkce: false,
    scopes: ['com.atproto.appPass'],
    policy: { marginSeconds: 300, proactiveAfterSeconds: null, rotatesRefreshToken: true },
    hasTargets: false,
    createSession: async ({ identifier, appPassword, serviceUrl }) => {
      const host = pds(serviceUrl);
      const answer = await oauthCall({
        ...common,
        method: 'POST',
        url: `${host}/xrpc/com.atproto.server.createSession`,
        json: { identifier, password: appPassword },
        grant: true,
      }).catch((error: unknown) => {
        // A wrong identifier or app password is the client's mistake, not a dead grant.
        if (error instanceof NetworkError && error.kind === 'reconnect') {
          throw new NetworkError(
            'permanent',
            'Bluesky refused the identifier or app password',
            error.details,
          );
        }
        throw error;
      });
      return { tokens: blueskyTokensOf(answer.body), account: blueskyAccountOf(answer.body, host) };
    },
    identify: async ({ tokens, serviceUrl }) => {
      const host = pds(serviceUrl);
      const answer = await oauthCall({
        ...common,
        method: 'GET',
        url: `${host}/xrpc/com.atproto.server.getSession`,
        bearer: tokens.accessToken,
        grant: false,
      });
      return blueskyAccountOf(answer.body, host);
    },
    refresh: async ({ tokens, serviceUrl }) => {
      if (!tokens.refreshToken) {
        throw new NetworkError(
          'reconnect',
          'Bluesky session has no refreshJwt: the channel must be reconnected',
          {},
        );
      }
      const answer = await oauthCall({
        ...common,
        method: 'POST',
        url: `${pds(serviceUrl)}/xrpc/com.atproto.server.refreshSession`,
        bearer: tokens.refreshToken,
        grant: true,
      });
      return blueskyTokensOf(answer.body);
    },
    revoke: async ({ tokens, serviceUrl }) => {
      if (!tokens.refreshToken) return;
      await oauthCall({
        ...common,
        method: 'POST',
        url: `${pds(serviceUrl)}/xrpc/com.atproto.server.deleteSession`,
        bearer: tokens.refreshToken,
        grant: true,
      });
    },
    // An app password can do everything Herald does (only DMs need a privileged one).
    capabilities: () => ({ publish: true, manage: true, threads: true, metrics: true }),
  };
};
