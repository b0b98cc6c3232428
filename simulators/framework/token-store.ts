import { createHash, randomBytes } from 'node:crypto';
import type { UnauthorizedReason } from './types.ts';

/**
 * The simulators' OAuth token store: the preset app credentials, authorization codes bound to
 * client, redirect URI and PKCE challenge, access tokens that expire, refresh tokens that expire,
 * rotate where the network rotates and die with a revoked grant (see oauth.ts).
 */

export interface SimOAuthApp {
  clientId: string;
  clientSecret: string;
  /** The redirect URIs registered with the app: any other is refused, at authorize and at the token exchange. */
  redirectUris: readonly string[];
}

/** The callback a preset app has registered unless another is given (a Herald served at herald.example). */
export const SIM_DEFAULT_REDIRECT_URI = 'https://herald.example/v1/channels/callback';

/** The preset app of a network on its simulator (the local runtime's configuration reads these). */
export const simOAuthApp = (
  network: string,
  redirectUris: readonly string[] = [SIM_DEFAULT_REDIRECT_URI],
): SimOAuthApp => ({
  clientId: `herald-sim-${network}`,
  clientSecret: `herald-sim-secret-${network}`,
  redirectUris,
});

export interface SimLifetimes {
  /** null: the access token does not expire. */
  accessSeconds: number | null;
  /** null: the refresh token does not expire (or the network issues none: see `issuesRefresh`). */
  refreshSeconds: number | null;
}

/** The account that consented, as the network module names it. */
export interface SimAccount {
  id: string;
  name: string;
  /** Anything else the network's answers carry (handle, DID...). */
  extra?: Record<string, string>;
}

export interface SimGrant {
  id: string;
  clientId: string;
  account: SimAccount;
  scopes: string[];
  revoked: boolean;
}

export interface IssuedTokens {
  accessToken: string;
  refreshToken: string | null;
  /** Seconds; null when the token does not expire. */
  expiresIn: number | null;
  refreshExpiresIn: number | null;
  grant: SimGrant;
}

interface TokenRecord {
  grant: SimGrant;
  kind: 'access' | 'refresh';
  expiresAt: number | null;
  /** A refresh token already exchanged on a rotating network. */
  used: boolean;
}

interface CodeRecord {
  clientId: string;
  redirectUri: string;
  challenge: string | null;
  challengeMethod: string | null;
  account: SimAccount;
  scopes: string[];
  expiresAt: number;
  used: boolean;
}

/** Why a code or refresh token is refused, in OAuth's vocabulary; the network module shapes the answer. */
export type GrantRefusal =
  | { error: 'invalid_grant'; description: string }
  | { error: 'invalid_request'; description: string }
  /** The exchange named another redirect URI than the code was issued for (the registered one). */
  | { error: 'redirect_uri_mismatch'; description: string };

export interface SimTokenStoreOptions {
  /** Prefix of the tokens, for the reader's eye (`x-at-...`). */
  prefix: string;
  defaults: SimLifetimes;
  /** The network invalidates a refresh token once it is used (X, TikTok; Bluesky's refreshJwt). */
  rotates: boolean;
  /** false: no refresh token at all (Vimeo, Instagram, Threads, Facebook exchange their tokens). */
  issuesRefresh: boolean;
  /** How an access token looks (Bluesky: a JWT); default `<prefix>-at-<random>`. */
  mintAccess?(grant: SimGrant, expiresAt: number | null): string;
  mintRefresh?(grant: SimGrant, expiresAt: number | null): string;
}

const CODE_TTL_MS = 10 * 60_000;

const envSeconds = (name: string): number | null => {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return null;
  const value = Number(raw);
  return Number.isFinite(value) && value > 0 ? value : null;
};

const random = (bytes = 24) => randomBytes(bytes).toString('base64url');

/** RFC 7636 S256. */
export const pkceChallenge = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

export class SimTokenStore {
  private readonly tokens = new Map<string, TokenRecord>();
  private readonly codes = new Map<string, CodeRecord>();
  private override: Partial<SimLifetimes> = {};

  constructor(private readonly options: SimTokenStoreOptions) {}

  /** The lifetimes in force now: this simulator's override, then the environment, then the network's default. */
  lifetimes(): SimLifetimes {
    const pick = (key: keyof SimLifetimes, env: string) => {
      const override = this.override[key];
      if (override !== undefined) return override;
      const fromEnv = envSeconds(env);
      if (fromEnv !== null && this.options.defaults[key] !== null) return fromEnv;
      return this.options.defaults[key];
    };
    return {
      accessSeconds: pick('accessSeconds', 'SIM_OAUTH_ACCESS_TTL_SECONDS'),
      refreshSeconds: pick('refreshSeconds', 'SIM_OAUTH_REFRESH_TTL_SECONDS'),
    };
  }

  setLifetimes(lifetimes: Partial<SimLifetimes>) {
    this.override = { ...this.override, ...lifetimes };
    for (const key of Object.keys(lifetimes) as (keyof SimLifetimes)[]) {
      if (lifetimes[key] === null) delete this.override[key];
    }
  }

  /** Every issued access token that expires at all (not Vimeo's, not a Facebook page token) is expired from now on. */
  expireAll() {
    const now = Date.now();
    for (const record of this.tokens.values()) {
      if (record.kind === 'access' && record.expiresAt !== null) record.expiresAt = now - 1;
    }
  }

  issueCode(input: Omit<CodeRecord, 'expiresAt' | 'used'>): string {
    const code = `${this.options.prefix}-code-${random(18)}`;
    this.codes.set(code, { ...input, expiresAt: Date.now() + CODE_TTL_MS, used: false });
    return code;
  }

  /** Redeems a code once, checking client, redirect URI and PKCE verifier. */
  redeemCode(input: {
    code: string;
    clientId: string;
    redirectUri: string | null;
    verifier: string | null;
  }): SimGrant | GrantRefusal {
    const record = this.codes.get(input.code);
    if (!record || record.used || record.expiresAt < Date.now() || record.clientId !== input.clientId) {
      if (record) record.used = true;
      return {
        error: 'invalid_grant',
        description: 'The authorization code is invalid, expired or already used.',
      };
    }
    record.used = true;
    if (input.redirectUri !== null && input.redirectUri !== record.redirectUri) {
      return {
        error: 'redirect_uri_mismatch',
        description: 'redirect_uri does not match the authorization request.',
      };
    }
    if (record.challenge !== null) {
      if (!input.verifier) return { error: 'invalid_request', description: 'code_verifier is required.' };
      const expected = record.challengeMethod === 'plain' ? input.verifier : pkceChallenge(input.verifier);
      if (expected !== record.challenge) {
        return { error: 'invalid_grant', description: 'code_verifier does not match the code_challenge.' };
      }
    }
    return {
      id: random(12),
      clientId: record.clientId,
      account: record.account,
      scopes: record.scopes,
      revoked: false,
    };
  }

  /** A grant straight from credentials (Bluesky's createSession). */
  grantFor(clientId: string, account: SimAccount, scopes: string[]): SimGrant {
    return { id: random(12), clientId, account, scopes, revoked: false };
  }

  /** Whether this simulator's lifetimes were shortened (override or environment): long-lived tokens follow them then. */
  private shortened(): boolean {
    return this.override.accessSeconds !== undefined || envSeconds('SIM_OAUTH_ACCESS_TTL_SECONDS') !== null;
  }

  issue(
    grant: SimGrant,
    keepRefresh?: { token: string; expiresAt: number | null },
    accessSecondsOverride?: number | null,
  ): IssuedTokens {
    const now = Date.now();
    const lifetimes = this.lifetimes();
    const { refreshSeconds } = lifetimes;
    const accessSeconds =
      accessSecondsOverride === undefined ? lifetimes.accessSeconds : accessSecondsOverride;
    const accessExpiresAt = accessSeconds === null ? null : now + accessSeconds * 1000;
    const accessToken =
      this.options.mintAccess?.(grant, accessExpiresAt) ?? `${this.options.prefix}-at-${random()}`;
    this.tokens.set(accessToken, { grant, kind: 'access', expiresAt: accessExpiresAt, used: false });
    let refreshToken: string | null = null;
    let refreshExpiresAt: number | null = null;
    if (keepRefresh) {
      refreshToken = keepRefresh.token;
      refreshExpiresAt = keepRefresh.expiresAt;
    } else if (this.options.issuesRefresh) {
      refreshExpiresAt = refreshSeconds === null ? null : now + refreshSeconds * 1000;
      refreshToken =
        this.options.mintRefresh?.(grant, refreshExpiresAt) ?? `${this.options.prefix}-rt-${random()}`;
      this.tokens.set(refreshToken, { grant, kind: 'refresh', expiresAt: refreshExpiresAt, used: false });
    }
    return {
      accessToken,
      refreshToken,
      expiresIn: accessExpiresAt === null ? null : Math.round((accessExpiresAt - now) / 1000),
      refreshExpiresIn:
        refreshExpiresAt === null ? null : Math.max(0, Math.round((refreshExpiresAt - now) / 1000)),
      grant,
    };
  }

  /** New tokens for a refresh token; rotating networks refuse the old one from then on. */
  refresh(refreshToken: string, clientId: string | null): IssuedTokens | GrantRefusal {
    const record = this.tokens.get(refreshToken);
    const refused: GrantRefusal = {
      error: 'invalid_grant',
      description: 'The refresh token is invalid, expired, revoked or already used.',
    };
    if (record?.kind !== 'refresh' || record.grant.revoked || record.used) return refused;
    if (clientId !== null && record.grant.clientId !== clientId) return refused;
    if (record.expiresAt !== null && record.expiresAt < Date.now()) return refused;
    if (this.options.rotates) {
      record.used = true;
      return this.issue(record.grant);
    }
    return this.issue(record.grant, { token: refreshToken, expiresAt: record.expiresAt });
  }

  /** A token that never expires, of the same grant (a Facebook page token). */
  issueLasting(grant: SimGrant): string {
    return this.issue(grant, { token: '', expiresAt: null }, null).accessToken;
  }

  /**
   * Exchanges a valid access token for a new one (Instagram, Threads, Facebook long-lived tokens):
   * it lives `longLivedSeconds` unless this simulator's lifetimes were shortened for tests.
   */
  exchange(accessToken: string, longLivedSeconds?: number): IssuedTokens | GrantRefusal {
    const record = this.tokens.get(accessToken);
    if (record?.kind !== 'access' || record.grant.revoked) {
      return { error: 'invalid_grant', description: 'The access token is invalid or revoked.' };
    }
    if (record.expiresAt !== null && record.expiresAt < Date.now()) {
      return { error: 'invalid_grant', description: 'The access token has expired.' };
    }
    return this.issue(
      record.grant,
      undefined,
      longLivedSeconds === undefined || this.shortened() ? undefined : longLivedSeconds,
    );
  }

  /** Revokes the grant behind a token (access or refresh): every token of it dies. true when known. */
  revoke(token: string): boolean {
    const record = this.tokens.get(token);
    if (!record) return false;
    record.grant.revoked = true;
    return true;
  }

  /** The grant behind a token, or null when the simulator did not issue it. */
  grantOf(token: string): SimGrant | null {
    return this.tokens.get(token)?.grant ?? null;
  }

  /** Whether the simulator issued this token as an access or a refresh token; null when it did not issue it. */
  kindOf(token: string): 'access' | 'refresh' | null {
    return this.tokens.get(token)?.kind ?? null;
  }

  /** Why an access token the simulator issued is refused; null when valid or not issued here. */
  refusal(token: string): UnauthorizedReason | null {
    const record = this.tokens.get(token);
    if (!record) return null;
    if (record.grant.revoked) return 'revoked';
    if (record.kind !== 'access') return 'revoked';
    if (record.expiresAt !== null && record.expiresAt < Date.now()) return 'expired';
    return null;
  }

  /**
   * A simulator reset forgets pending codes and the lifetime override; the grants it issued stay
   * (they are the accounts' connections, not posts), so a connected channel's tokens keep their
   * expiry and revocation across resets instead of turning into unknown, ever-valid tokens.
   */
  reset() {
    this.codes.clear();
    this.override = {};
  }
}
