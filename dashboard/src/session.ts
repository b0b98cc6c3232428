/**
 * The signed-in session: tokens in sessionStorage (gone when the tab closes), refreshed a minute
 * before the access token expires, and on demand when the API answers 401.
 */
import { claimsOf, refresh, type Tokens } from './cognito.ts';
import type { DashboardConfig } from './config.ts';

const KEY = 'herald.session';
/** Refresh this long before the access token expires. */
const EARLY_MS = 60_000;

type Listener = (tokens: Tokens | null) => void;

export class Session {
  private tokens: Tokens | null;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private refreshing: Promise<Tokens | null> | undefined;
  /** Bumped whenever the tokens change, so a refresh started before knows it is stale. */
  private generation = 0;
  private readonly listeners = new Set<Listener>();

  constructor(private readonly cognito: DashboardConfig['cognito']) {
    const saved = sessionStorage.getItem(KEY);
    const tokens = saved ? (JSON.parse(saved) as Tokens) : null;
    this.tokens = tokens && Number.isFinite(tokens.expiresAt) ? tokens : null;
    this.schedule();
  }

  get current(): Tokens | null {
    return this.tokens;
  }

  /** Who is signed in, from the id token's claims (display only: the API trusts its authorizer). */
  get email(): string {
    if (!this.tokens) return '';
    const claims = claimsOf(this.tokens.idToken);
    return String(claims.email ?? claims['cognito:username'] ?? '');
  }

  onChange(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  set(tokens: Tokens | null): void {
    // A refresh still under way when the tokens change (a sign-out, a new sign-in) must not land.
    this.generation += 1;
    this.refreshing = undefined;
    this.tokens = tokens;
    if (tokens) sessionStorage.setItem(KEY, JSON.stringify(tokens));
    else sessionStorage.removeItem(KEY);
    this.schedule();
    for (const listener of this.listeners) listener(tokens);
  }

  signOut(): void {
    this.set(null);
  }

  /** An access token valid for at least a little longer, refreshing first if it is about to expire. */
  async accessToken(): Promise<string | null> {
    if (!this.tokens) return null;
    if (this.tokens.expiresAt - Date.now() < EARLY_MS) return (await this.renew())?.accessToken ?? null;
    return this.tokens.accessToken;
  }

  /** New tokens from the refresh token (one refresh at a time); signed out if Cognito refuses. */
  renew(): Promise<Tokens | null> {
    const refreshToken = this.tokens?.refreshToken;
    if (!refreshToken) return Promise.resolve(null);
    if (this.refreshing) return this.refreshing;
    const generation = this.generation;
    const stale = () => generation !== this.generation;
    const refreshing = refresh(this.cognito, refreshToken).then(
      (tokens) => {
        if (stale()) return this.tokens;
        this.set(tokens);
        return tokens;
      },
      () => {
        if (!stale()) this.set(null);
        return this.tokens;
      },
    );
    this.refreshing = refreshing;
    return refreshing;
  }

  private schedule(): void {
    clearTimeout(this.timer);
    if (!this.tokens) return;
    const wait = Math.max(0, this.tokens.expiresAt - Date.now() - EARLY_MS);
    this.timer = setTimeout(() => void this.renew(), wait);
  }
}
