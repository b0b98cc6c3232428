import { randomUUID } from 'node:crypto';
import type { PlatformId } from '../../platforms/types.ts';
import type { AccountStore, ChannelRecord } from '../../ports/accounts.ts';
import { type AppCredentials, appFor } from '../../ports/app-credentials.ts';
import type { Clock } from '../../ports/clock.ts';
import type { NetworkAuth } from '../../ports/network-auth.ts';
import { type NetworkCredentials, NetworkError } from '../../ports/network-client.ts';
import type { JobQueue, OutboxEvent } from '../../ports/publishing.ts';
import type { TokenCipher } from '../../ports/token-cipher.ts';
import { newId } from '../../shared/ids.ts';
import { logger } from '../../shared/powertools.ts';
import { expiresWithin, openTokens, sealTokens, tokenFields } from './tokens.ts';

/** What the token service depends on. */
export interface TokenServiceDeps {
  clock: Clock;
  accounts: AccountStore;
  tokenCipher: () => TokenCipher;
  /** The network's auth, or null when the network cannot be connected through the API. */
  auths: (platform: PlatformId) => NetworkAuth | null;
  appCredentials: AppCredentials;
  queue: () => JobQueue;
}

export interface TokenServiceOptions {
  /** How long one refresh may hold a channel's tokens before another caller may take over (seconds). */
  holdSeconds: number;
  /** How often a caller waiting for another's refresh re-reads the channel (milliseconds). */
  pollMs: number;
}

const DEFAULTS: TokenServiceOptions = { holdSeconds: 30, pollMs: 100 };

/** What the channel's owner learns when the network refuses the refresh. */
const REFUSED =
  'The network refused to refresh the access token (revoked, or the refresh token expired); reconnect the channel.';

/** Where the call is made for, to name it in the `channel.needs_reconnect` event. */
export interface CallContext {
  postId?: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The one way to a channel's valid access token (issue 11). Before a network call it refreshes a
 * token that expires within the network's margin; after an "expired" answer it refreshes once and
 * the call is tried again. One refresh at a time per channel, across processes: a refresh first
 * holds the channel (a conditional write on its token version), and its new tokens are written
 * conditionally on that version; every other caller waits and re-reads the winner's tokens, so a
 * rotating refresh token is used exactly once. Only a refresh the network refuses makes the
 * channel `needs_reconnect`, with one `channel.needs_reconnect` event (written with the mark).
 */
export class TokenService {
  private readonly inflight = new Map<string, Promise<ChannelRecord>>();
  private readonly options: TokenServiceOptions;

  constructor(
    private readonly deps: TokenServiceDeps,
    options: Partial<TokenServiceOptions> = {},
  ) {
    this.options = { ...DEFAULTS, ...options };
  }

  /** Credentials for a call now: the channel's tokens, refreshed first when they expire within the margin. */
  async credentials(channel: ChannelRecord, context: CallContext = {}): Promise<NetworkCredentials> {
    const auth = this.deps.auths(channel.platform);
    let current = channel;
    if (auth && expiresWithin(channel, auth.policy.marginSeconds, this.deps.clock.now())) {
      current = await this.refresh(channel, context);
    }
    return this.credentialsOf(current);
  }

  /**
   * Runs `call` with valid credentials; when the network answers that the token expired, refreshes
   * it (once, whoever else is refreshing) and runs `call` once more.
   */
  async withCredentials<T>(
    channel: ChannelRecord,
    call: (credentials: NetworkCredentials) => Promise<T>,
    context: CallContext = {},
  ): Promise<T> {
    const credentials = await this.credentials(channel, context);
    try {
      return await call(credentials);
    } catch (error) {
      if (!isTokenExpired(error)) throw error;
      const fresh = await this.afterExpired(channel, credentials, context);
      return call(fresh);
    }
  }

  /**
   * Credentials after the network said `used` expired: another caller's new tokens if they exist
   * already, otherwise a refresh.
   */
  async afterExpired(
    channel: ChannelRecord,
    used: NetworkCredentials,
    context: CallContext = {},
  ): Promise<NetworkCredentials> {
    const latest = await this.reread(channel);
    const current = await this.credentialsOf(latest);
    if (current.accessToken !== used.accessToken) return current;
    return this.credentialsOf(await this.refresh(latest, context));
  }

  /** Refreshes the channel's tokens now (the proactive sweep); returns the channel as it is afterwards. */
  refreshNow(channel: ChannelRecord, context: CallContext = {}): Promise<ChannelRecord> {
    return this.refresh(channel, context);
  }

  private async credentialsOf(channel: ChannelRecord): Promise<NetworkCredentials> {
    const tokens = await openTokens(this.deps.tokenCipher(), channel.channelId, channel.tokenCiphertext);
    return {
      accessToken: tokens.accessToken,
      remoteAccountId: channel.remoteAccountId,
      serviceUrl: channel.serviceUrl ?? null,
    };
  }

  private async reread(channel: ChannelRecord): Promise<ChannelRecord> {
    const latest = await this.deps.accounts.getChannel(channel.workspaceId, channel.channelId);
    if (!latest) throw new NetworkError('permanent', 'The channel is no longer connected to this workspace.');
    if (latest.connection === 'needs_reconnect') throw new NetworkError('reconnect', REFUSED);
    return latest;
  }

  /** One refresh per channel per process; across processes the hold below decides. */
  private refresh(channel: ChannelRecord, context: CallContext): Promise<ChannelRecord> {
    const key = `${channel.workspaceId}/${channel.channelId}`;
    const running = this.inflight.get(key);
    if (running) return running;
    const started = this.refreshOnce(channel, context).finally(() => this.inflight.delete(key));
    this.inflight.set(key, started);
    return started;
  }

  private async refreshOnce(channel: ChannelRecord, context: CallContext): Promise<ChannelRecord> {
    const { deps, options } = this;
    const version = channel.tokenVersion ?? 0;
    const owner = randomUUID();
    // Waiting callers give up after two holds: by then the holder has finished or its hold lapsed.
    const giveUpAt = Date.now() + options.holdSeconds * 2000 + 5000;
    let latest = channel;
    for (;;) {
      const now = deps.clock.now();
      const until = new Date(now.getTime() + options.holdSeconds * 1000).toISOString();
      if (
        await deps.accounts.holdRefresh(
          latest.workspaceId,
          latest.channelId,
          version,
          owner,
          now.toISOString(),
          until,
        )
      ) {
        return this.refreshHeld(latest, owner, context);
      }
      latest = await this.reread(latest);
      if ((latest.tokenVersion ?? 0) !== version) return latest;
      if (Date.now() > giveUpAt) {
        throw new NetworkError('transient', 'Another refresh of this channel is taking too long; try again.');
      }
      await sleep(options.pollMs);
    }
  }

  private async refreshHeld(
    channel: ChannelRecord,
    owner: string,
    context: CallContext,
  ): Promise<ChannelRecord> {
    const { deps } = this;
    const version = channel.tokenVersion ?? 0;
    const cipher = deps.tokenCipher();
    const auth = deps.auths(channel.platform);
    let refreshed: Awaited<ReturnType<NetworkAuth['refresh']>>;
    try {
      const tokens = await openTokens(cipher, channel.channelId, channel.tokenCiphertext);
      const app = auth ? await appFor(deps.appCredentials, channel.platform, auth.kind) : null;
      // A network that cannot be connected through the API (a channel pasted in by the admin CLI)
      // has nothing to refresh with: the network's "expired" stands, as a refused refresh would.
      if (!auth) throw new NetworkError('reconnect', REFUSED);
      if (!app)
        throw new NetworkError('transient', `The ${channel.platform} app credentials are not configured.`);
      refreshed = await auth.refresh({ app, tokens, serviceUrl: channel.serviceUrl ?? null });
    } catch (error) {
      // A refused refresh keeps the hold until the mark (which drops it): a waiter must not try again.
      if (!(error instanceof NetworkError && error.kind === 'reconnect')) {
        await deps.accounts.releaseRefresh(channel.workspaceId, channel.channelId, owner);
      }
      if (error instanceof NetworkError && error.kind === 'reconnect') {
        const latest = await deps.accounts.getChannel(channel.workspaceId, channel.channelId);
        // Someone reconnected the channel meanwhile: their tokens are good.
        if (latest && latest.connection === 'connected' && (latest.tokenVersion ?? 0) !== version)
          return latest;
        await this.refused(channel, context);
        throw new NetworkError('reconnect', REFUSED);
      }
      if (error instanceof NetworkError) throw error;
      logger.error('Token refresh failed', { channelId: channel.channelId, error: error as Error });
      throw new NetworkError('transient', 'The network did not answer the token refresh.');
    }
    const now = deps.clock.now();
    const policy = (auth as NetworkAuth).policy;
    // Issued now by Herald's clock (the proactive sweep's age counts from it), not the host's.
    const stamped = { ...refreshed, issuedAt: now.toISOString() };
    const update = {
      tokenCiphertext: await sealTokens(cipher, channel.channelId, stamped),
      ...tokenFields(policy, stamped, now),
      updatedAt: now.toISOString(),
    };
    if (!(await deps.accounts.replaceTokens(channel.workspaceId, channel.channelId, version, update))) {
      // Our hold lapsed and someone else refreshed (or the channel was reconnected): theirs stand.
      logger.warn('A token refresh lost its hold; using the tokens written meanwhile', {
        channelId: channel.channelId,
      });
      return this.reread(channel);
    }
    return { ...channel, ...update, tokenVersion: version + 1 };
  }

  /** Marks the channel `needs_reconnect` with its one event (the mark's condition makes it one). */
  private async refused(channel: ChannelRecord, context: CallContext): Promise<void> {
    const { deps } = this;
    const event: OutboxEvent = {
      id: newId('evt'),
      type: 'channel.needs_reconnect',
      createdAt: deps.clock.now().toISOString(),
      accountId: channel.accountId,
      workspaceId: channel.workspaceId,
      mode: 'live',
      data: {
        channelId: channel.channelId,
        platform: channel.platform,
        channelName: channel.name,
        ...(context.postId ? { postId: context.postId } : {}),
        error: 'The network refused to refresh the access token.',
      },
    };
    const { kept } = await deps.accounts.markNeedsReconnect(channel.workspaceId, channel.channelId, event);
    // Kept only when it changed and the workspace may have a webhook endpoint (the outbox's rule).
    if (kept.length > 0) {
      // The outbox sweep hands it on if this send is lost.
      await deps
        .queue()
        .sendEvent(event.id)
        .catch((error: unknown) =>
          logger.warn('Could not queue an event; the outbox sweep will', { error: error as Error }),
        );
    }
  }
}

/** The network said the access token expired (not revoked): a refresh may fix it. */
export const isTokenExpired = (error: unknown): error is NetworkError =>
  error instanceof NetworkError && error.kind === 'reconnect' && error.details.tokenExpired === true;
