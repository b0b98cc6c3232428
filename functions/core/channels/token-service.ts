import { randomUUID } from 'node:crypto';
import { newId } from '../../domain/ids.ts';
import type { PlatformId } from '../../domain/platforms/types.ts';
import { type AppCredentials, appFor } from '../../ports/app-credentials.ts';
import type { ChannelRecord, ChannelStore, TokenUpdate } from '../../ports/channels.ts';
import type { Clock } from '../../ports/clock.ts';
import type { GrantRecord, GrantStore } from '../../ports/grants.ts';
import type { NetworkAuth } from '../../ports/network-auth.ts';
import { type NetworkCredentials, NetworkError } from '../../ports/network-client.ts';
import type { JobQueue, OutboxEvent } from '../../ports/publishing.ts';
import type { TokenCipher } from '../../ports/token-cipher.ts';
import { logger } from '../../shared/powertools.ts';
import { sharedGrantSealId } from './grants.ts';
import { expiresWithin, openTokens, sealTokens, tokenFields } from './tokens.ts';

/** What the token service depends on. */
export interface TokenServiceDeps {
  clock: Clock;
  channels: ChannelStore;
  grants: GrantStore;
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
 * Where a channel's tokens are: its own record, or the grant it shares with its siblings (the boards
 * of one Pinterest account). Refreshes, holds and versions are the holder's, so siblings refresh a
 * shared grant once between them.
 */
type Holder = { kind: 'channel'; channel: ChannelRecord } | { kind: 'grant'; grant: GrantRecord };

/** The token fields of a holder (the same on a channel and a grant). */
const fieldsOf = (holder: Holder) => {
  const record = holder.kind === 'channel' ? holder.channel : holder.grant;
  return {
    workspaceId: record.workspaceId,
    id: holder.kind === 'channel' ? holder.channel.channelId : holder.grant.grantId,
    sealId: holder.kind === 'channel' ? holder.channel.channelId : sharedGrantSealId(holder.grant.grantId),
    platform: record.platform,
    tokenCiphertext: record.tokenCiphertext,
    tokenVersion: record.tokenVersion ?? 0,
    tokenExpiresAt: record.tokenExpiresAt ?? null,
    connection: record.connection,
    serviceUrl: record.serviceUrl ?? null,
  };
};

/**
 * The one way to a channel's valid access token (issue 11). Before a network call it refreshes a
 * token that expires within the network's margin; after an "expired" answer it refreshes once and
 * the call is tried again. One refresh at a time per token holder (the channel, or the grant it
 * shares with its siblings), across processes: a refresh first holds it (a conditional write on its
 * token version), and its new tokens are written conditionally on that version; every other caller
 * waits and re-reads the winner's tokens, so a rotating refresh token is used exactly once. Only a
 * refresh the network refuses makes the channel `needs_reconnect` (every channel of a shared
 * grant), with one `channel.needs_reconnect` event each (written with the mark).
 */
export class TokenService {
  private readonly inflight = new Map<string, Promise<Holder>>();
  private readonly options: TokenServiceOptions;

  constructor(
    private readonly deps: TokenServiceDeps,
    options: Partial<TokenServiceOptions> = {},
  ) {
    this.options = { ...DEFAULTS, ...options };
  }

  /** Credentials for a call now: the channel's tokens, refreshed first when they expire within the margin. */
  async credentials(channel: ChannelRecord, context: CallContext = {}): Promise<NetworkCredentials> {
    let holder = await this.holderOf(channel);
    const auth = this.deps.auths(fieldsOf(holder).platform);
    if (auth && expiresWithin(fieldsOf(holder), auth.policy.marginSeconds, this.deps.clock.now())) {
      holder = await this.refresh(channel, holder, context);
    }
    return this.credentialsOf(channel, holder);
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
   * already (a sibling's, on a shared grant), otherwise a refresh.
   */
  async afterExpired(
    channel: ChannelRecord,
    used: NetworkCredentials,
    context: CallContext = {},
  ): Promise<NetworkCredentials> {
    const latest = await this.reread(channel);
    const holder = await this.holderOf(latest);
    const current = await this.credentialsOf(latest, holder);
    if (current.accessToken !== used.accessToken) return current;
    return this.credentialsOf(latest, await this.refresh(latest, holder, context));
  }

  /** Refreshes the channel's tokens now (the proactive sweep); returns the channel as it is afterwards. */
  async refreshNow(channel: ChannelRecord, context: CallContext = {}): Promise<ChannelRecord> {
    const holder = await this.refresh(channel, await this.holderOf(channel), context);
    return holder.kind === 'channel' ? holder.channel : channel;
  }

  /** The channel's own tokens, or its shared grant (refused once the network refused the grant). */
  private async holderOf(channel: ChannelRecord): Promise<Holder> {
    if (!channel.grantId) return { kind: 'channel', channel };
    const grant = await this.deps.grants.getGrant(channel.workspaceId, channel.grantId);
    if (!grant || grant.connection === 'needs_reconnect') throw new NetworkError('reconnect', REFUSED);
    return { kind: 'grant', grant };
  }

  private async credentialsOf(channel: ChannelRecord, holder: Holder): Promise<NetworkCredentials> {
    const fields = fieldsOf(holder);
    const tokens = await openTokens(this.deps.tokenCipher(), fields.sealId, fields.tokenCiphertext);
    return {
      accessToken: tokens.accessToken,
      remoteAccountId: channel.remoteAccountId,
      serviceUrl: channel.serviceUrl ?? null,
    };
  }

  private async reread(channel: ChannelRecord): Promise<ChannelRecord> {
    const latest = await this.deps.channels.getChannel(channel.workspaceId, channel.channelId);
    if (!latest) throw new NetworkError('permanent', 'The channel is no longer connected to this workspace.');
    if (latest.connection === 'needs_reconnect') throw new NetworkError('reconnect', REFUSED);
    return latest;
  }

  /** The holder as stored now (the channel re-read, or its grant), refused once marked. */
  private async rereadHolder(channel: ChannelRecord, holder: Holder): Promise<Holder> {
    if (holder.kind === 'channel') return { kind: 'channel', channel: await this.reread(channel) };
    return this.holderOf({ ...channel, grantId: holder.grant.grantId });
  }

  /** One refresh per holder per process; across processes the hold below decides. */
  private refresh(channel: ChannelRecord, holder: Holder, context: CallContext): Promise<Holder> {
    const fields = fieldsOf(holder);
    const key = `${fields.workspaceId}/${holder.kind}/${fields.id}`;
    const running = this.inflight.get(key);
    if (running) return running;
    const started = this.refreshOnce(channel, holder, context).finally(() => this.inflight.delete(key));
    this.inflight.set(key, started);
    return started;
  }

  private hold(holder: Holder, version: number, owner: string, now: string, until: string) {
    const { channels, grants } = this.deps;
    const { workspaceId, id } = fieldsOf(holder);
    return holder.kind === 'channel'
      ? channels.holdRefresh(workspaceId, id, version, owner, now, until)
      : grants.holdGrantRefresh(workspaceId, id, version, owner, now, until);
  }

  private release(holder: Holder, owner: string) {
    const { channels, grants } = this.deps;
    const { workspaceId, id } = fieldsOf(holder);
    return holder.kind === 'channel'
      ? channels.releaseRefresh(workspaceId, id, owner)
      : grants.releaseGrantRefresh(workspaceId, id, owner);
  }

  private replace(holder: Holder, version: number, update: TokenUpdate) {
    const { channels, grants } = this.deps;
    const { workspaceId, id } = fieldsOf(holder);
    return holder.kind === 'channel'
      ? channels.replaceTokens(workspaceId, id, version, update)
      : grants.replaceGrantTokens(workspaceId, id, version, update);
  }

  private async refreshOnce(channel: ChannelRecord, holder: Holder, context: CallContext): Promise<Holder> {
    const { options } = this;
    const version = fieldsOf(holder).tokenVersion;
    const owner = randomUUID();
    // Waiting callers give up after two holds: by then the holder has finished or its hold lapsed.
    const giveUpAt = Date.now() + options.holdSeconds * 2000 + 5000;
    let latest = holder;
    for (;;) {
      const now = this.deps.clock.now();
      const until = new Date(now.getTime() + options.holdSeconds * 1000).toISOString();
      if (await this.hold(latest, version, owner, now.toISOString(), until)) {
        return this.refreshHeld(channel, latest, owner, context);
      }
      latest = await this.rereadHolder(channel, latest);
      if (fieldsOf(latest).tokenVersion !== version) return latest;
      if (Date.now() > giveUpAt) {
        throw new NetworkError('transient', 'Another refresh of this channel is taking too long; try again.');
      }
      await sleep(options.pollMs);
    }
  }

  private async refreshHeld(
    channel: ChannelRecord,
    holder: Holder,
    owner: string,
    context: CallContext,
  ): Promise<Holder> {
    const { deps } = this;
    const fields = fieldsOf(holder);
    const version = fields.tokenVersion;
    const cipher = deps.tokenCipher();
    const auth = deps.auths(fields.platform);
    let refreshed: Awaited<ReturnType<NetworkAuth['refresh']>>;
    try {
      const tokens = await openTokens(cipher, fields.sealId, fields.tokenCiphertext);
      const app = auth ? await appFor(deps.appCredentials, fields.platform, auth.kind) : null;
      // A network that cannot be connected through the API (a channel pasted in by the admin CLI)
      // has nothing to refresh with: the network's "expired" stands, as a refused refresh would.
      if (!auth) throw new NetworkError('reconnect', REFUSED);
      if (!app)
        throw new NetworkError('transient', `The ${fields.platform} app credentials are not configured.`);
      refreshed = await auth.refresh({ app, tokens, serviceUrl: fields.serviceUrl });
    } catch (error) {
      // A refused refresh keeps the hold until the mark (which drops it): a waiter must not try again.
      if (!(error instanceof NetworkError && error.kind === 'reconnect')) {
        await this.release(holder, owner);
      }
      if (error instanceof NetworkError && error.kind === 'reconnect') {
        const latest = await this.storedHolder(holder);
        // Someone reconnected meanwhile: their tokens are good.
        if (
          latest &&
          fieldsOf(latest).connection === 'connected' &&
          fieldsOf(latest).tokenVersion !== version
        )
          return latest;
        await this.refused(channel, holder, context);
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
      tokenCiphertext: await sealTokens(cipher, fields.sealId, stamped),
      ...tokenFields(policy, stamped, now),
      updatedAt: now.toISOString(),
    };
    if (!(await this.replace(holder, version, update))) {
      // Our hold lapsed and someone else refreshed (or the channel was reconnected): theirs stand.
      logger.warn('A token refresh lost its hold; using the tokens written meanwhile', {
        channelId: channel.channelId,
        ...(holder.kind === 'grant' ? { grantId: holder.grant.grantId } : {}),
      });
      return this.rereadHolder(channel, holder);
    }
    return holder.kind === 'channel'
      ? { kind: 'channel', channel: { ...holder.channel, ...update, tokenVersion: version + 1 } }
      : { kind: 'grant', grant: { ...holder.grant, ...update, tokenVersion: version + 1 } };
  }

  /** The holder as stored, whatever its connection (null: gone). */
  private async storedHolder(holder: Holder): Promise<Holder | null> {
    const { channels, grants } = this.deps;
    const { workspaceId, id } = fieldsOf(holder);
    if (holder.kind === 'channel') {
      const channel = await channels.getChannel(workspaceId, id);
      return channel ? { kind: 'channel', channel } : null;
    }
    const grant = await grants.getGrant(workspaceId, id);
    return grant ? { kind: 'grant', grant } : null;
  }

  /**
   * The network refused the refresh: the channel is marked `needs_reconnect` with its one event (the
   * mark's condition makes it one); on a shared grant, the grant and every channel sharing it.
   */
  private async refused(channel: ChannelRecord, holder: Holder, context: CallContext): Promise<void> {
    if (holder.kind === 'channel') {
      await this.markChannel(channel, context);
      return;
    }
    const { channels, grants } = this.deps;
    const { grant } = holder;
    await grants.markGrantNeedsReconnect(grant.workspaceId, grant.grantId);
    const ids = [...new Set([channel.channelId, ...grant.channelIds])];
    for (const id of ids) {
      const sibling = id === channel.channelId ? channel : await channels.getChannel(grant.workspaceId, id);
      if (sibling?.grantId !== grant.grantId) continue;
      await this.markChannel(sibling, id === channel.channelId ? context : {});
    }
  }

  private async markChannel(channel: ChannelRecord, context: CallContext): Promise<void> {
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
    const { kept } = await deps.channels.markNeedsReconnect(channel.workspaceId, channel.channelId, event);
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
