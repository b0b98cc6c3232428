import { createHash } from 'node:crypto';
import { ApiError } from '../../domain/errors.ts';
import { isId, randomBase62 } from '../../domain/ids.ts';
import { planLimits } from '../../domain/plans.ts';
import type { PlatformId } from '../../domain/platforms/types.ts';
import type { AccountStore } from '../../ports/accounts.ts';
import { type AppCredentials, appFor } from '../../ports/app-credentials.ts';
import type { ChannelRecord, ChannelStore } from '../../ports/channels.ts';
import type { Clock } from '../../ports/clock.ts';
import type { ChannelToSave, ConnectState, ConnectStateStore } from '../../ports/connect-states.ts';
import type { GrantStore } from '../../ports/grants.ts';
import type { NetworkAccount, NetworkAuth, OAuthApp, TokenSet } from '../../ports/network-auth.ts';
import { NetworkError } from '../../ports/network-client.ts';
import type { TokenCipher } from '../../ports/token-cipher.ts';
import type { HostResolver, WebhookSettings } from '../../ports/webhooks.ts';
import { hostNameProblem, isAllowedAddress } from '../../shared/address-policy.ts';
import { logger } from '../../shared/powertools.ts';
import type { AuthContext } from '../auth/api-keys.ts';
import { channelView } from './channel-view.ts';
import { sharedGrantSealId } from './grants.ts';
import type { ConnectChannelBody, CreateChannelBody } from './schema.ts';
import { openTokens, sealTokens, tokenFields } from './tokens.ts';

/** What connecting channels depends on. */
export interface ConnectDeps {
  clock: Clock;
  accounts: AccountStore;
  channels: ChannelStore;
  grants: GrantStore;
  connectStates: ConnectStateStore;
  tokenCipher: () => TokenCipher;
  auths: (platform: PlatformId) => NetworkAuth | null;
  appCredentials: AppCredentials;
  /** Resolves a client-given host (a Bluesky PDS), checked like a webhook address before any call. */
  resolveHost: HostResolver;
  webhookSettings: () => Pick<WebhookSettings, 'allowLoopback'>;
}

/** How long a connect flow's `state` is accepted. */
export const CONNECT_STATE_SECONDS = 600;

/** Hex SHA-256: a connect state is found by the hash of its `state`, a connect code kept as its hash. */
export const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const base64url = (bytes: Buffer) => bytes.toString('base64url');

/** The connect state's own encryption context (a grant waiting for its targets belongs to no channel yet). */
export const grantSealId = (stateHash: string) => `connect_${stateHash.slice(0, 32)}`;

/** The network's auth and app, or the clear refusal of a network that cannot be connected. */
export const networkFor = async (
  deps: Pick<ConnectDeps, 'auths' | 'appCredentials'>,
  platform: PlatformId,
): Promise<{ auth: NetworkAuth; app: OAuthApp }> => {
  const auth = deps.auths(platform);
  const app = auth ? await appFor(deps.appCredentials, platform, auth.kind) : null;
  if (!auth || !app) {
    throw new ApiError(
      'network_not_configured',
      `${platform} cannot be connected here: ${auth ? 'its app credentials (client id and secret) are not configured' : 'it has no connection flow yet'}.`,
      'platform',
    );
  }
  return { auth, app };
};

/** POST /v1/channels/connect: the consent screen's URL and the single-use state bound to the workspace. */
export const startConnect = async (
  deps: Pick<ConnectDeps, 'clock' | 'accounts' | 'channels' | 'connectStates' | 'auths' | 'appCredentials'>,
  auth: AuthContext,
  body: ConnectChannelBody,
  callbackUri: string,
) => {
  const network = await networkFor(deps, body.platform);
  if (network.auth.kind !== 'oauth2' || !network.auth.authorizeUrl) {
    throw new ApiError(
      'validation_failed',
      `${body.platform} connects with an app password: POST /v1/channels { platform, identifier, appPassword }.`,
      'platform',
    );
  }
  await refuseAtChannelLimit(deps, auth, body.platform);
  const state = randomBase62(43);
  const codeVerifier = network.auth.usesPkce ? randomBase62(64) : null;
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + CONNECT_STATE_SECONDS * 1000).toISOString();
  const record: ConnectState = {
    stateHash: sha256(state),
    accountId: auth.accountId,
    workspaceId: auth.workspaceId,
    mode: auth.mode,
    platform: body.platform,
    redirectUrl: body.redirectUrl,
    codeVerifier,
    status: 'pending',
    createdAt: now.toISOString(),
    expiresAt,
  };
  await deps.connectStates.create(record);
  const authorizeUrl = network.auth.authorizeUrl({
    app: network.app,
    redirectUri: callbackUri,
    state,
    codeChallenge: codeVerifier ? base64url(createHash('sha256').update(codeVerifier).digest()) : null,
  });
  return { authorizeUrl, state, expiresAt };
};

/**
 * A new connection at the plan's channel limit is refused before the user is sent to the network
 * (a reconnect of one of the workspace's channels of that network is not: it adds none).
 */
const refuseAtChannelLimit = async (
  deps: Pick<ConnectDeps, 'accounts' | 'channels'>,
  auth: AuthContext,
  platform: PlatformId,
) => {
  const account = await deps.accounts.getAccount(auth.accountId);
  const limit = account ? planLimits(account.plan).channels : null;
  if (!account || limit === null || account.channelCount < limit) return;
  const channels = await deps.channels.listChannels(auth.workspaceId);
  if (channels.some((channel) => channel.platform === platform)) return;
  throw new ApiError(
    'quota_exceeded',
    `The plan allows ${limit} connected channels; disconnect one or change plan.`,
  );
};

export const channelLimit = async (deps: Pick<ConnectDeps, 'accounts'>, accountId: string) => {
  const account = await deps.accounts.getAccount(accountId);
  if (!account) throw new ApiError('not_found', 'The account no longer exists.');
  return planLimits(account.plan).channels;
};

interface ChannelInput {
  accountId: string;
  workspaceId: string;
  platform: PlatformId;
  auth: NetworkAuth;
  account: NetworkAccount;
  tokens: TokenSet;
}

/** The channel of one remote account with its tokens, as it is saved (or reconnected). */
export const channelToSave = (
  deps: Pick<ConnectDeps, 'clock' | 'tokenCipher'>,
  input: ChannelInput,
): ChannelToSave => {
  const { auth, account, tokens } = input;
  const now = deps.clock.now();
  const capabilities = auth.capabilities(tokens.scopes.length > 0 ? tokens.scopes : auth.scopes);
  return {
    base: {
      accountId: input.accountId,
      workspaceId: input.workspaceId,
      platform: input.platform,
      name: account.name,
      remoteAccountId: account.remoteAccountId,
      connection: 'connected',
      threadsPermitted: capabilities.threads,
      ...tokenFields(auth.policy, tokens, now),
      scopes: tokens.scopes,
      capabilities,
      serviceUrl: account.serviceUrl ?? null,
      authKind: auth.kind,
      updatedAt: now.toISOString(),
      createdAt: now.toISOString(),
    },
    seal: (channelId) => sealTokens(deps.tokenCipher(), channelId, tokens),
  };
};

/** Saves (or reconnects) the channel of one remote account with its tokens. */
const saveChannel = async (
  deps: Pick<ConnectDeps, 'clock' | 'accounts' | 'channels' | 'tokenCipher'>,
  input: ChannelInput,
) => {
  const { base, seal } = channelToSave(deps, input);
  return deps.channels.upsertChannel(base, seal, await channelLimit(deps, input.accountId));
};

/**
 * POST /v1/channels (Bluesky app password): one createSession (the network allows 30 per 5
 * minutes), then the session's refreshJwt keeps the channel connected.
 */
export const connectWithAppPassword = async (
  deps: Omit<ConnectDeps, 'connectStates' | 'grants'>,
  auth: AuthContext,
  body: CreateChannelBody,
  defaultServiceUrl: string,
) => {
  const { auth: network } = await networkFor(deps, body.platform);
  if (network.kind !== 'app_password' || !network.createSession) {
    throw new ApiError(
      'validation_failed',
      `${body.platform} connects through POST /v1/channels/connect.`,
      'platform',
    );
  }
  if (body.service) await checkService(deps, body.service);
  let session: Awaited<ReturnType<NonNullable<NetworkAuth['createSession']>>>;
  try {
    session = await network.createSession({
      identifier: body.identifier,
      appPassword: body.appPassword,
      serviceUrl: body.service ?? defaultServiceUrl,
    });
  } catch (error) {
    if (!(error instanceof NetworkError)) throw error;
    // The PDS (the service given, or the one the account's DID document names) is not one Herald
    // may call: refused before any token went there, and nothing is stored.
    if (error.details.notAllowed) {
      throw new ApiError('url_not_allowed', error.message, body.service ? 'service' : undefined);
    }
    if (error.kind === 'transient') {
      const retryAfter: Record<string, string> = error.details.retryAfterSeconds
        ? { 'Retry-After': String(error.details.retryAfterSeconds) }
        : {};
      // Bluesky allows 30 sign-ins per 5 minutes per account: too many connects are the caller's.
      if (error.details.rateLimited || error.details.status === 429) {
        throw new ApiError(
          'rate_limited',
          'Bluesky is rate limiting sign-ins for this account (30 per 5 minutes); retry after Retry-After seconds.',
          undefined,
          retryAfter['Retry-After'] ? retryAfter : { 'Retry-After': '300' },
        );
      }
      if (body.service) {
        throw new ApiError(
          'network_refused',
          `The PDS at service could not be reached: ${error.message}`,
          'service',
        );
      }
      throw new ApiError(
        'service_unavailable',
        `The network could not be reached: ${error.message}`,
        undefined,
        retryAfter,
      );
    }
    throw new ApiError(
      'network_refused',
      `The network refused the identifier or app password: ${error.message}`,
      'appPassword',
    );
  }
  const account = {
    ...session.account,
    serviceUrl: session.account.serviceUrl ?? (body.service ? body.service : null),
  };
  const result = await saveChannel(deps, {
    accountId: auth.accountId,
    workspaceId: auth.workspaceId,
    platform: body.platform,
    auth: network,
    account,
    tokens: session.tokens,
  });
  return { created: result.created, channel: channelView(result.channel) };
};

/**
 * A client-given PDS is called from inside our network: like a webhook URL it must be a DNS name
 * (or address) that resolves only to public internet addresses (loopback locally).
 */
const checkService = async (deps: Pick<ConnectDeps, 'resolveHost' | 'webhookSettings'>, service: string) => {
  const host = new URL(service).hostname.replace(/^\[|\]$/g, '');
  const problem = hostNameProblem(host);
  if (problem) throw new ApiError('validation_failed', `service: ${problem}`, 'service');
  let addresses: { address: string }[];
  try {
    addresses = await deps.resolveHost(host);
  } catch {
    throw new ApiError('network_refused', `service: ${host} does not resolve.`, 'service');
  }
  const { allowLoopback } = deps.webhookSettings();
  if (addresses.length === 0 || addresses.some((a) => !isAllowedAddress(a.address, { allowLoopback }))) {
    throw new ApiError(
      'url_not_allowed',
      `service: ${host} must resolve only to public internet addresses.`,
      'service',
    );
  }
};

/** GET /v1/channels/{id} */
export const getChannel = async (
  deps: Pick<ConnectDeps, 'channels'>,
  auth: AuthContext,
  channelId: string,
) => {
  const channel = isId('ch', channelId) ? await deps.channels.getChannel(auth.workspaceId, channelId) : null;
  if (!channel) throw new ApiError('not_found', 'No channel with this id in this workspace.');
  return channelView(channel);
};

/**
 * DELETE /v1/channels/{id}: revokes the grant at the network where it has a revocation call (a
 * failed revocation does not keep the channel), then removes the channel and its tokens. Posts
 * keep their history. A channel on a shared grant leaves it; the grant is revoked and removed only
 * with the last channel that uses it (revoking it earlier would disconnect the siblings).
 */
export const disconnectChannel = async (
  deps: Pick<ConnectDeps, 'channels' | 'grants' | 'auths' | 'appCredentials' | 'tokenCipher'>,
  auth: AuthContext,
  channelId: string,
) => {
  const channel = isId('ch', channelId) ? await deps.channels.getChannel(auth.workspaceId, channelId) : null;
  if (!channel) throw new ApiError('not_found', 'No channel with this id in this workspace.');
  let revoked = false;
  const network = deps.auths(channel.platform);
  const held = network?.revoke && channel.authKind ? await heldTokens(deps, channel) : null;
  if (network?.revoke && held) {
    try {
      const app = await appFor(deps.appCredentials, channel.platform, network.kind);
      if (app) {
        const tokens = await openTokens(deps.tokenCipher(), held.sealId, held.ciphertext);
        await network.revoke({ app, tokens, serviceUrl: channel.serviceUrl ?? null });
        revoked = true;
      }
    } catch (error) {
      logger.warn('Revoking a channel grant failed; the channel is removed all the same', {
        channelId,
        platform: channel.platform,
        error: error instanceof NetworkError ? error.message : (error as Error).message,
      });
    }
  }
  if (!(await deps.channels.disconnectChannel(channel))) {
    throw new ApiError('not_found', 'No channel with this id in this workspace.');
  }
  return { id: channelId, disconnected: true as const, revoked };
};

/** The tokens a disconnection may revoke: the channel's own, or its shared grant's if no other channel uses it. */
const heldTokens = async (
  deps: Pick<ConnectDeps, 'grants'>,
  channel: ChannelRecord,
): Promise<{ sealId: string; ciphertext: string } | null> => {
  if (!channel.grantId) return { sealId: channel.channelId, ciphertext: channel.tokenCiphertext };
  const grant = await deps.grants.getGrant(channel.workspaceId, channel.grantId);
  if (!grant || grant.channelIds.some((id) => id !== channel.channelId)) return null;
  return { sealId: sharedGrantSealId(grant.grantId), ciphertext: grant.tokenCiphertext };
};
