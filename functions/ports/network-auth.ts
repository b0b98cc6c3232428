import type { PlatformId } from '../domain/platforms/types.ts';
import type { OutboundPolicy } from './outbound.ts';

/**
 * How Herald obtains, refreshes and revokes a network's tokens (issue 11). One implementation per
 * network lives in `functions/platforms/<network>/oauth.ts`; the connect routes, the token service
 * and the proactive refresh sweep (in `functions/core/channels/`) speak only this interface.
 *
 * Every method throws `NetworkError` (ports/network-client.ts) on failure: `reconnect` when the
 * network refused the grant itself (revoked, refresh token expired or already used), `transient`
 * for outages and rate limits, `permanent` for a request the network calls invalid.
 */

/** The network app's credentials: Secrets Manager on AWS (one secret per network), preset locally. */
export interface OAuthApp {
  clientId: string;
  clientSecret: string;
}

/** Tokens as the network granted them. Plaintext only in memory: stored encrypted. */
export interface TokenSet {
  accessToken: string;
  /** null where the network issues none (Vimeo; LinkedIn outside its partner programme). */
  refreshToken: string | null;
  /** ISO 8601 UTC; null when the network says the token does not expire. */
  expiresAt: string | null;
  /** ISO 8601 UTC; null when unknown or unlimited. */
  refreshExpiresAt: string | null;
  /** The scopes the network says it granted (what the user accepted, not what was asked). */
  scopes: string[];
  /** When these tokens were issued (Instagram and Threads may extend a token once it is ≥ 24 h old). */
  issuedAt: string;
}

/** The account behind a grant, as the network names it. */
export interface NetworkAccount {
  /** The network-side id the channel posts as (user id, DID, person URN...). */
  remoteAccountId: string;
  /** Display name or handle. */
  name: string;
  /** Bluesky: the account's PDS. */
  serviceUrl?: string | null;
}

/** One target an account may post to, on networks where an account owns several (pages, boards, YouTube channels). */
export interface NetworkTarget {
  targetId: string;
  name: string;
  /** The platform id the target becomes a channel of (a LinkedIn organization is `linkedin_page`). */
  platform: PlatformId;
  /** What the target is, for display: 'page', 'organization', 'board', 'channel'. */
  kind: string;
}

/** What each network decides about refreshing. */
export interface RefreshPolicy {
  /** Refresh when the access token expires within this many seconds (before a call). */
  marginSeconds: number;
  /**
   * Long-lived tokens that must be extended before they lapse (Instagram, Threads, Pinterest,
   * Facebook user tokens): the sweep refreshes a token once it is at least this old. null: only
   * refresh when near expiry.
   */
  proactiveAfterSeconds: number | null;
  /** The network invalidates the old refresh token when it issues a new one (X, TikTok). */
  rotatesRefreshToken: boolean;
}

export interface AuthorizeInput {
  app: OAuthApp;
  /** Herald's callback (`<public base URL>/v1/channels/callback`), registered with the network app. */
  redirectUri: string;
  state: string;
  /** S256 challenge when `usesPkce`, else null. */
  codeChallenge: string | null;
}

export interface NetworkAuth {
  platform: PlatformId;
  /** `oauth2`: consent screen and code; `app_password`: Bluesky's identifier + app password. */
  kind: 'oauth2' | 'app_password';
  usesPkce: boolean;
  /** Scopes asked for: publishing, editing, deleting, reading metrics. */
  scopes: string[];
  policy: RefreshPolicy;
  /** The account owns several targets; the client picks which become channels. */
  hasTargets: boolean;

  /** The consent screen's URL (oauth2 only). */
  authorizeUrl?(input: AuthorizeInput): string;
  /** Exchanges the code (and, where the network has them, short-lived for long-lived tokens). */
  exchangeCode?(input: {
    app: OAuthApp;
    code: string;
    redirectUri: string;
    codeVerifier: string | null;
  }): Promise<TokenSet>;
  /** Bluesky: createSession with an app password (rate-limited at the network: call once per connect). */
  createSession?(input: { identifier: string; appPassword: string; serviceUrl: string }): Promise<{
    tokens: TokenSet;
    account: NetworkAccount;
  }>;
  /** Who the tokens belong to. */
  identify(input: { app: OAuthApp; tokens: TokenSet; serviceUrl?: string | null }): Promise<NetworkAccount>;
  /** The account's targets (only when `hasTargets`). */
  targets?(input: { app: OAuthApp; tokens: TokenSet }): Promise<NetworkTarget[]>;
  /**
   * The tokens a chosen target posts with: a Facebook page has its own page token; elsewhere the
   * account's tokens (default when absent).
   */
  targetTokens?(input: { app: OAuthApp; tokens: TokenSet; target: NetworkTarget }): Promise<TokenSet>;
  /** New tokens for old; throws `reconnect` when the network refuses the refresh. */
  refresh(input: { app: OAuthApp; tokens: TokenSet; serviceUrl?: string | null }): Promise<TokenSet>;
  /** Revokes the grant at the network where it has a revocation call (absent: nothing to call). */
  revoke?(input: { app: OAuthApp; tokens: TokenSet; serviceUrl?: string | null }): Promise<void>;
  /** What the granted scopes allow (drives the channel's statuses). */
  capabilities(scopes: string[]): { publish: boolean; manage: boolean; threads: boolean; metrics: boolean };
}

/** Where the network's endpoints are: the local simulators' base URLs, or the network's own hosts. */
export interface NetworkAuthConfig {
  /** Base URL of the network's API (and OAuth endpoints) per platform, as NETWORK_BASE_URLS gives them; absent: the network's own. */
  baseUrls: Record<string, string>;
  timeoutMs: number;
  /** The guarded path's policy for hosts a client chose or a network named (a Bluesky PDS); default: strict. */
  outbound?: OutboundPolicy;
}
