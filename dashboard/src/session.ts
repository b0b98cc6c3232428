/**
 * The signed-in session: tokens in sessionStorage (gone when the tab closes), refreshed a minute
 * before the access token expires, and on demand when the API answers 401.
 */
import { refresh, type Tokens } from './cognito.ts';
import type { DashboardConfig } from './config.ts';

const KEY = 'herald.session';
/** Refresh this long before the access token expires. */
const EARLY_MS = 60_000;

type Listener = (tokens: Tokens | null) => void;

export class Session {
  private tokens: Tokens | null;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private refreshing: Promise<Tokens | null> | undefined;
  private readonly listeners = new Set<Listener>();

  constructor(private readonly cognito: DashboardConfig['cognito']) {
    const saved = sessionStorage.getItem(KEY);
    this.tokens = saved ? (JSON.parse(saved) as Tokens) : null;
    this.schedule();
  }

  get current(): Tokens | null {
    return this.tokens;
  }

  /** Who is signed in, from the id token's claims (display only: the API trusts its authorizer). */
  get email(): string {
    const payload = this.tokens?.idToken.split('.')[1];
    if (!payload) return '';
    try {
      const claims = JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/'))) as Record<
        string,
        unknown
      >;
      return String(claims.email ?? claims['cognito:username'] ?? '');
    } catch {
      return '';
    }
  }

  onChange(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  set(tokens: Tokens | null): void {
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
    this.refreshing ??= refresh(this.cognito, refreshToken)
      .then((tokens) => {
        this.set(tokens);
        return tokens;
      })
      .catch(() => {
        this.set(null);
        return null;
      })
      .finally(() => {
        this.refreshing = undefined;
      });
    return this.refreshing;
  }

  private schedule(): void {
    clearTimeout(this.timer);
    if (!this.tokens) return;
    const wait = Math.max(0, this.tokens.expiresAt - Date.now() - EARLY_MS);
    this.timer = setTimeout(() => void this.renew(), wait);
  }
}
