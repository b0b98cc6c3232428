import type { NetworkAccount, NetworkAuth, NetworkAuthConfig, TokenSet } from '../../ports/network-auth.ts';
import { NetworkError } from '../../ports/network-client.ts';
import type { OutboundPolicy } from '../../ports/outbound.ts';
import { checkGuarded, isTrusted, STRICT_OUTBOUND, sendGuarded } from '../guarded-http.ts';
import { baseUrlOf, GUARD_REFUSALS, guardRefusal, TransportError } from '../network-http.ts';
import {
  classifyOAuthFailure,
  type OAuthAnswer,
  type OAuthCall,
  oauthCall,
  requireString,
} from '../oauth-http.ts';

/**
 * Bluesky with an app password (what automation uses): `com.atproto.server.createSession`
 * `{ identifier, password }` on the account's PDS once per connect (the PDS allows 30 per 5
 * minutes, 300 a day), then `refreshSession` with the refreshJwt as bearer (it returns a new
 * refreshJwt: the old one must not be used again), `getSession` to identify, `deleteSession` to
 * revoke. The access JWT lives about 2 hours, the refresh JWT 90 days; both expiries are read from
 * the JWTs' `exp` claims. The account's PDS is taken from its DID document (`#atproto_pds`), so
 * accounts on other PDSs keep working after the first call.
 *
 * A PDS other than the configured one (a client's `service`, a DID document's endpoint) is called
 * through the guarded path (guarded-http.ts), and a DID document naming one the path refuses is
 * refused at sign-in, before it can be stored: no token ever goes to an address the policy refuses.
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

/**
 * `oauthCall` through the guarded path: the same answers and classification, refusals permanent.
 * Bluesky's session calls carry a bearer or JSON only (no form, query or client credentials).
 */
const guardedOAuthCall = async (policy: OutboundPolicy, call: OAuthCall): Promise<OAuthAnswer> => {
  const headers: Record<string, string> = {
    accept: 'application/json',
    'user-agent': 'Herald/0.1 (social publishing API)',
    ...(call.headers ?? {}),
    ...(call.bearer ? { authorization: `Bearer ${call.bearer}` } : {}),
  };
  let answer: Awaited<ReturnType<typeof sendGuarded>>;
  try {
    answer = await sendGuarded(policy, {
      method: call.method,
      url: call.url,
      headers,
      ...(call.json !== undefined ? { json: call.json } : {}),
      timeoutMs: call.timeoutMs,
    });
  } catch (error) {
    if (!(error instanceof TransportError)) throw error;
    if (GUARD_REFUSALS.has(error.code)) throw guardRefusal(call.network, error.message);
    const reason = error.code === 'TIMEOUT' ? 'no answer in time' : 'could not be reached';
    throw new NetworkError('transient', `${call.network} ${reason}`, {});
  }
  const answerHeaders = new Headers(answer.headers);
  if (answer.status >= 200 && answer.status < 300) {
    return { status: answer.status, headers: answerHeaders, body: answer.body };
  }
  throw classifyOAuthFailure(call.network, answer.status, answer.body, answerHeaders, call.grant);
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
  const policy = config.outbound ?? STRICT_OUTBOUND;
  /** Herald's own hosts: the configured PDS (the simulator locally) and bsky.social. */
  const trusted = [configured ?? BLUESKY_DEFAULT_SERVICE, BLUESKY_DEFAULT_SERVICE];
  const xrpc = (call: OAuthCall) =>
    isTrusted(trusted, call.url) ? oauthCall(call) : guardedOAuthCall(policy, call);
  /** The session's account, once the PDS its DID document names passes the guarded path. */
  const accountOf = async (body: unknown, host: string): Promise<NetworkAccount> => {
    const account = blueskyAccountOf(body, host);
    const named = account.serviceUrl;
    if (!named || isTrusted(trusted, named)) return account;
    try {
      await checkGuarded(policy, named);
    } catch (error) {
      if (!(error instanceof TransportError)) throw error;
      const where = `the account's DID document names its PDS at ${named.slice(0, 200)}`;
      if (GUARD_REFUSALS.has(error.code)) throw guardRefusal('Bluesky', `${where}: ${error.message}`);
      // A host that cannot be checked cannot be stored: a name that does not resolve is refused
      // like a refused address; a resolver's failure is temporary.
      if (error.code === 'ENOTFOUND' || error.code === 'ENODATA')
        throw guardRefusal('Bluesky', `${where}, which does not resolve to any address`);
      throw new NetworkError(
        'transient',
        `Bluesky: ${where}, which could not be resolved just now (${error.code})`,
        {},
      );
    }
    return account;
  };
  return {
    platform: 'bluesky',
    kind: 'app_password',
    usesPkce: false,
    scopes: ['com.atproto.appPass'],
    policy: { marginSeconds: 300, proactiveAfterSeconds: null, rotatesRefreshToken: true },
    hasTargets: false,
    createSession: async ({ identifier, appPassword, serviceUrl }) => {
      const host = pds(serviceUrl);
      const answer = await xrpc({
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
      return { tokens: blueskyTokensOf(answer.body), account: await accountOf(answer.body, host) };
    },
    identify: async ({ tokens, serviceUrl }) => {
      const host = pds(serviceUrl);
      const answer = await xrpc({
        ...common,
        method: 'GET',
        url: `${host}/xrpc/com.atproto.server.getSession`,
        bearer: tokens.accessToken,
        grant: false,
      });
      return accountOf(answer.body, host);
    },
    refresh: async ({ tokens, serviceUrl }) => {
      if (!tokens.refreshToken) {
        throw new NetworkError(
          'reconnect',
          'Bluesky session has no refreshJwt: the channel must be reconnected',
          {},
        );
      }
      const answer = await xrpc({
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
      await xrpc({
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
