import { createHash, timingSafeEqual } from 'node:crypto';
import type { PlatformId } from '../../platforms/types.ts';
import type { AccountStore } from '../../ports/accounts.ts';
import { type AppCredentials, appFor } from '../../ports/app-credentials.ts';
import type { Clock } from '../../ports/clock.ts';
import type { ChannelToSave, ConnectState, ConnectStateStore } from '../../ports/connect-states.ts';
import type { NetworkAccount, NetworkAuth, OAuthApp, TokenSet } from '../../ports/network-auth.ts';
import { NetworkError } from '../../ports/network-client.ts';
import type { TokenCipher } from '../../ports/token-cipher.ts';
import type { HostResolver, WebhookSettings } from '../../ports/webhooks.ts';
import { hostNameProblem, isAllowedAddress } from '../../shared/address-policy.ts';
import { ApiError, isApiError } from '../../shared/errors.ts';
import { isId, randomBase62 } from '../../shared/ids.ts';
import { logger } from '../../shared/powertools.ts';
import type { AuthContext } from '../auth/api-keys.ts';
import { planLimits } from '../usage/plans.ts';
import { channelView } from './channel-view.ts';
import {
  type ChooseTargetsBody,
  CONNECT_CODE_PATTERN,
  CONNECTION_ID_PATTERN,
  type CompleteConnectBody,
  type ConnectChannelBody,
  type CreateChannelBody,
} from './schema.ts';
import { openTokens, sealTokens, tokenFields } from './tokens.ts';

/** What connecting channels depends on. */
export interface ConnectDeps {
  clock: Clock;
  accounts: AccountStore;
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
/** How long the connect code (from the callback) and then the target choice (from the completion) are accepted. */
export const CONNECT_CODE_SECONDS = 600;

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const base64url = (bytes: Buffer) => bytes.toString('base64url');

/** The state's hash as a connect code or connection id carries it (43 base64url characters). */
const locator = (stateHash: string) => base64url(Buffer.from(stateHash, 'hex'));
/** The state's hash a connect code or connection id points at (null: not one of ours). */
const locatedHash = (value: string, pattern: RegExp): string | null => {
  const text = pattern.exec(value)?.[1];
  if (!text) return null;
  const hash = Buffer.from(text, 'base64url').toString('hex');
  return hash.length === 64 && locator(hash) === text ? hash : null;
};
/** The id a connection waiting for its targets is known by (`con_...`): it points at its state, it opens nothing. */
const connectionIdOf = (stateHash: string) => `con_${locator(stateHash)}`;
const sameHash = (a: string, b: string) =>
  a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** The connect state's own encryption context (a grant waiting for its targets belongs to no channel yet). */
const grantSealId = (stateHash: string) => `connect_${stateHash.slice(0, 32)}`;

/** The network's auth and app, or the clear refusal of a network that cannot be connected. */
const networkFor = async (
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
  deps: Pick<ConnectDeps, 'clock' | 'accounts' | 'connectStates' | 'auths' | 'appCredentials'>,
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
  deps: Pick<ConnectDeps, 'accounts'>,
  auth: AuthContext,
  platform: PlatformId,
) => {
  const account = await deps.accounts.getAccount(auth.accountId);
  const limit = account ? planLimits(account.plan).channels : null;
  if (!account || limit === null || account.channelCount < limit) return;
  const channels = await deps.accounts.listChannels(auth.workspaceId);
  if (channels.some((channel) => channel.platform === platform)) return;
  throw new ApiError(
    'quota_exceeded',
    `The plan allows ${limit} connected channels; disconnect one or change plan.`,
  );
};

const channelLimit = async (deps: Pick<ConnectDeps, 'accounts'>, accountId: string) => {
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
const channelToSave = (
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
  deps: Pick<ConnectDeps, 'clock' | 'accounts' | 'tokenCipher'>,
  input: ChannelInput,
) => {
  const { base, seal } = channelToSave(deps, input);
  return deps.accounts.upsertChannel(base, seal, await channelLimit(deps, input.accountId));
};

/** Where the callback sends the browser. */
export type CallbackOutcome = { location: string };

const withQuery = (url: string, params: Record<string, string>) => {
  const target = new URL(url);
  for (const [key, value] of Object.entries(params)) target.searchParams.set(key, value);
  return target.toString();
};

/** A network's error code as a redirect may carry it (letters, digits and underscores only). */
const safeCode = (value: string | undefined, fallback: string) =>
  value && /^[A-Za-z0-9_]{1,64}$/.test(value) ? value : fallback;

/**
 * GET /v1/channels/callback: the network's redirect. The state authenticates it (single use,
 * unexpired; otherwise `invalid_state`, never a redirect). The code is exchanged and the account
 * read; the grant is kept sealed in the state, and the browser goes back to the client's
 * redirectUrl with a single-use `connectCode` (or `error`). No channel exists until the key holder
 * completes it (completeConnect).
 */
export const completeCallback = async (
  deps: Pick<ConnectDeps, 'clock' | 'connectStates' | 'tokenCipher' | 'auths' | 'appCredentials'>,
  query: { state?: string; code?: string; error?: string },
  callbackUri: string,
): Promise<CallbackOutcome> => {
  if (!query.state || query.state.length > 200) throw new ApiError('invalid_state', undefined, 'state');
  const state = query.state;
  const stateHash = sha256(state);
  const record = await deps.connectStates.get(stateHash);
  if (!record) throw new ApiError('invalid_state', undefined, 'state');
  const used = () =>
    new ApiError(
      'invalid_state',
      'This connection was already used; start again with POST /v1/channels/connect.',
      'state',
    );
  if (record.status !== 'pending') throw used();
  const now = deps.clock.now();
  if (now.toISOString() > record.expiresAt) {
    throw new ApiError(
      'invalid_state',
      'This connection took longer than 10 minutes; start again with POST /v1/channels/connect.',
      'state',
    );
  }
  if (!(await deps.connectStates.transition(stateHash, 'pending', 'exchanging'))) throw used();
  // From here the state is this request's: its redirectUrl is the one its creator chose.
  const back = (params: Record<string, string>) => ({
    location: withQuery(record.redirectUrl, { ...params, state }),
  });
  const fail = async (error: string, description: string) => {
    await deps.connectStates.transition(stateHash, 'exchanging', 'failed');
    return back({ error, error_description: description });
  };
  if (query.error || !query.code) {
    return fail(safeCode(query.error, 'invalid_request'), 'The network did not grant access.');
  }
  const auth = deps.auths(record.platform);
  const app = auth ? await appFor(deps.appCredentials, record.platform, auth.kind) : null;
  if (!auth?.exchangeCode || !app)
    return fail('network_not_configured', 'The network cannot be connected here.');
  try {
    const tokens = await auth.exchangeCode({
      app,
      code: query.code,
      redirectUri: callbackUri,
      codeVerifier: record.codeVerifier,
    });
    const account = await auth.identify({ app, tokens });
    const targets = auth.hasTargets && auth.targets ? await auth.targets({ app, tokens }) : null;
    const connectCode = `cc_${locator(stateHash)}${randomBase62(32)}`;
    const granted = await deps.connectStates.transition(stateHash, 'exchanging', 'granted', {
      grantCiphertext: await sealTokens(deps.tokenCipher(), grantSealId(stateHash), tokens),
      connectCodeHash: sha256(connectCode),
      expiresAt: new Date(now.getTime() + CONNECT_CODE_SECONDS * 1000).toISOString(),
      ...(targets
        ? { targets }
        : {
            channel: channelToSave(deps, {
              accountId: record.accountId,
              workspaceId: record.workspaceId,
              platform: record.platform,
              auth,
              account,
              tokens,
            }).base,
          }),
    });
    if (!granted) throw used();
    return back({ connectCode });
  } catch (error) {
    if (isApiError(error)) return fail(error.code, error.message);
    if (error instanceof NetworkError) {
      return fail(
        error.kind === 'transient' ? 'network_unavailable' : 'network_refused',
        `The network refused the connection: ${error.message}`,
      );
    }
    logger.error('Connect callback failed', { platform: record.platform, error: error as Error });
    return fail('internal_error', 'Something went wrong on our side; try again.');
  }
};

const targetView = (target: NonNullable<ConnectState['targets']>[number]) => ({
  id: target.targetId,
  name: target.name,
  platform: target.platform,
  kind: target.kind,
});

/** A finished connection's write refused because the state moved meanwhile: the caller's own words for it. */
const whenUsed = async <T>(write: Promise<T>, refusal: () => ApiError): Promise<T> => {
  try {
    return await write;
  } catch (error) {
    if (isApiError(error) && error.code === 'invalid_state') throw refusal();
    throw error;
  }
};

/**
 * POST /v1/channels/connect/complete: the key holder turns the grant behind a connect code into
 * the channel (201 new, 200 the workspace's channel of that account reconnected), or, on a network
 * whose account owns targets, into the target choice. Single use; the plan's channel limit is
 * checked here, and a refusal leaves the code usable until it expires.
 */
export const completeConnect = async (
  deps: Pick<ConnectDeps, 'clock' | 'accounts' | 'connectStates' | 'tokenCipher'>,
  auth: AuthContext,
  body: CompleteConnectBody,
) => {
  const stateHash = locatedHash(body.connectCode, CONNECT_CODE_PATTERN);
  const record = stateHash ? await deps.connectStates.get(stateHash) : null;
  // Another workspace's code (or the other key mode's) is as unknown as a forged one.
  if (
    !stateHash ||
    !record?.connectCodeHash ||
    record.workspaceId !== auth.workspaceId ||
    (record.mode ?? 'live') !== auth.mode ||
    !sameHash(record.connectCodeHash, sha256(body.connectCode))
  ) {
    throw new ApiError('not_found', 'No connection with this connect code in this workspace.', 'connectCode');
  }
  const used = () =>
    new ApiError(
      'connect_code_used',
      record.channelIds?.length
        ? `This connect code was already used: it connected ${record.channelIds.join(', ')}.`
        : undefined,
      'connectCode',
    );
  if (record.status !== 'granted') throw used();
  const now = deps.clock.now();
  if (now.toISOString() > record.expiresAt)
    throw new ApiError('connect_code_expired', undefined, 'connectCode');
  if (record.targets) {
    const expiresAt = new Date(now.getTime() + CONNECT_CODE_SECONDS * 1000).toISOString();
    if (!(await deps.connectStates.transition(stateHash, 'granted', 'targets', { expiresAt }))) throw used();
    return {
      status: 200,
      body: {
        pending: 'targets' as const,
        connectionId: connectionIdOf(stateHash),
        platform: record.platform,
        expiresAt,
        data: record.targets.map(targetView),
      },
    };
  }
  const tokens = await openTokens(
    deps.tokenCipher(),
    grantSealId(stateHash),
    record.grantCiphertext as string,
  );
  const at = now.toISOString();
  const channel: ChannelToSave = {
    base: { ...(record.channel as NonNullable<ConnectState['channel']>), createdAt: at, updatedAt: at },
    seal: (channelId) => sealTokens(deps.tokenCipher(), channelId, tokens),
  };
  const [saved] = await whenUsed(
    deps.connectStates.finish(stateHash, 'granted', [channel], await channelLimit(deps, record.accountId)),
    used,
  );
  const result = saved as NonNullable<typeof saved>;
  return { status: result.created ? 201 : 200, body: channelView(result.channel) };
};

/** The state of a targets step (by its state or its connection id), for the workspace that started it. */
const targetsState = async (
  deps: Pick<ConnectDeps, 'clock' | 'connectStates'>,
  auth: AuthContext,
  state: string,
) => {
  const stateHash = state.startsWith('con_')
    ? locatedHash(state, CONNECTION_ID_PATTERN)
    : state.length <= 200
      ? sha256(state)
      : null;
  const record = stateHash ? await deps.connectStates.get(stateHash) : null;
  // Another workspace's state is as unknown as a forged one.
  if (!record || record.workspaceId !== auth.workspaceId || (record.mode ?? 'live') !== auth.mode) {
    throw new ApiError('not_found', 'No connection with this state in this workspace.');
  }
  if (deps.clock.now().toISOString() > record.expiresAt)
    throw new ApiError('invalid_state', 'This connection expired; start again.');
  if (record.status !== 'targets') {
    throw new ApiError(
      'invalid_state',
      record.status === 'done'
        ? 'The targets of this connection were already chosen.'
        : record.status === 'granted'
          ? 'Complete this connection first: POST /v1/channels/connect/complete with its connect code.'
          : 'This connection has no targets to choose (the network has not redirected back, or it failed).',
    );
  }
  return record;
};

/** GET /v1/channels/connect/{state}/targets */
export const listTargets = async (
  deps: Pick<ConnectDeps, 'clock' | 'connectStates'>,
  auth: AuthContext,
  state: string,
) => {
  const record = await targetsState(deps, auth, state);
  return {
    platform: record.platform,
    expiresAt: record.expiresAt,
    data: (record.targets ?? []).map(targetView),
  };
};

/**
 * POST /v1/channels/connect/{state}/targets: the chosen targets become channels, all or none (one
 * write, counted together against the plan's limit; a refusal leaves the choice open). Single use.
 */
export const chooseTargets = async (
  deps: Omit<ConnectDeps, 'resolveHost' | 'webhookSettings'>,
  auth: AuthContext,
  state: string,
  body: ChooseTargetsBody,
) => {
  const record = await targetsState(deps, auth, state);
  const stateHash = record.stateHash;
  const byId = new Map((record.targets ?? []).map((target) => [target.targetId, target]));
  const unknown = body.targetIds.find((id) => !byId.has(id));
  if (unknown !== undefined) {
    throw new ApiError(
      'validation_failed',
      `targetIds: ${unknown} is not one of this account's targets.`,
      'targetIds',
    );
  }
  const network = await networkFor(deps, record.platform);
  const grant = await openTokens(
    deps.tokenCipher(),
    grantSealId(stateHash),
    record.grantCiphertext as string,
  );
  let channels: ChannelToSave[];
  try {
    channels = await Promise.all(
      body.targetIds.map(async (id) => {
        const target = byId.get(id) as NonNullable<ConnectState['targets']>[number];
        const tokens = network.auth.targetTokens
          ? await network.auth.targetTokens({ app: network.app, tokens: grant, target })
          : grant;
        return channelToSave(deps, {
          accountId: record.accountId,
          workspaceId: record.workspaceId,
          platform: target.platform,
          auth: deps.auths(target.platform) ?? network.auth,
          account: { remoteAccountId: target.targetId, name: target.name },
          tokens,
        });
      }),
    );
  } catch (error) {
    if (error instanceof NetworkError) {
      throw new ApiError(
        error.kind === 'transient' ? 'service_unavailable' : 'network_refused',
        `The network refused the targets: ${error.message}`,
      );
    }
    throw error;
  }
  const saved = await whenUsed(
    deps.connectStates.finish(stateHash, 'targets', channels, await channelLimit(deps, record.accountId)),
    () => new ApiError('invalid_state', 'The targets of this connection were already chosen.'),
  );
  return { data: saved.map((result) => channelView(result.channel)) };
};

/**
 * POST /v1/channels (Bluesky app password): one createSession (the network allows 30 per 5
 * minutes), then the session's refreshJwt keeps the channel connected.
 */
export const connectWithAppPassword = async (
  deps: Omit<ConnectDeps, 'connectStates'>,
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
  deps: Pick<ConnectDeps, 'accounts'>,
  auth: AuthContext,
  channelId: string,
) => {
  const channel = isId('ch', channelId) ? await deps.accounts.getChannel(auth.workspaceId, channelId) : null;
  if (!channel) throw new ApiError('not_found', 'No channel with this id in this workspace.');
  return channelView(channel);
};

/**
 * DELETE /v1/channels/{id}: revokes the grant at the network where it has a revocation call (a
 * failed revocation does not keep the channel), then removes the channel and its tokens. Posts
 * keep their history.
 */
export const disconnectChannel = async (
  deps: Pick<ConnectDeps, 'accounts' | 'auths' | 'appCredentials' | 'tokenCipher'>,
  auth: AuthContext,
  channelId: string,
) => {
  const channel = isId('ch', channelId) ? await deps.accounts.getChannel(auth.workspaceId, channelId) : null;
  if (!channel) throw new ApiError('not_found', 'No channel with this id in this workspace.');
  let revoked = false;
  const network = deps.auths(channel.platform);
  if (network?.revoke && channel.authKind) {
    try {
      const app = await appFor(deps.appCredentials, channel.platform, network.kind);
      if (app) {
        const tokens = await openTokens(deps.tokenCipher(), channel.channelId, channel.tokenCiphertext);
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
  if (!(await deps.accounts.disconnectChannel(channel))) {
    throw new ApiError('not_found', 'No channel with this id in this workspace.');
  }
  return { id: channelId, disconnected: true as const, revoked };
};
