import { timingSafeEqual } from 'node:crypto';
import { ApiError, isApiError } from '../../domain/errors.ts';
import { randomBase62 } from '../../domain/ids.ts';
import { appFor } from '../../ports/app-credentials.ts';
import type { ChannelToSave, ConnectState } from '../../ports/connect-states.ts';
import type { GrantToSave } from '../../ports/grants.ts';
import type { NetworkAuth, TokenSet } from '../../ports/network-auth.ts';
import { NetworkError } from '../../ports/network-client.ts';
import { logger } from '../../shared/powertools.ts';
import type { AuthContext } from '../auth/api-keys.ts';
import { channelView } from './channel-view.ts';
import { type ConnectDeps, channelLimit, channelToSave, grantSealId, networkFor, sha256 } from './connect.ts';
import { grantIdFor, sharedGrantSealId, sharesGrant } from './grants.ts';
import {
  type ChooseTargetsBody,
  CONNECT_CODE_PATTERN,
  CONNECTION_ID_PATTERN,
  type CompleteConnectBody,
} from './schema.ts';
import { openTokens, sealTokens, tokenFields } from './tokens.ts';

/**
 * A grant's way from the network's redirect to channels: the callback keeps it (sealed) and hands
 * the client's page a connect code; the key holder completes it into a channel, or into the
 * target choice.
 */

/** How long the connect code (from the callback) and then the target choice (from the completion) are accepted. */
export const CONNECT_CODE_SECONDS = 600;

/** The state's hash as a connect code or connection id carries it (43 base64url characters). */
const locator = (stateHash: string) => Buffer.from(stateHash, 'hex').toString('base64url');
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
        ? { targets, grantAccountId: account.remoteAccountId }
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
 * Where the targets post with the account's own rotating tokens (Pinterest boards), the grant is
 * stored once and the channels share it (see grants.ts); elsewhere each channel keeps its own.
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
  const shared = sharesGrant(network.auth) ? sharedGrantOf(deps, record, network.auth, grant) : null;
  let channels: ChannelToSave[];
  try {
    channels = await Promise.all(
      body.targetIds.map(async (id) => {
        const target = byId.get(id) as NonNullable<ConnectState['targets']>[number];
        const tokens = network.auth.targetTokens
          ? await network.auth.targetTokens({ app: network.app, tokens: grant, target })
          : grant;
        const channel = channelToSave(deps, {
          accountId: record.accountId,
          workspaceId: record.workspaceId,
          platform: target.platform,
          auth: deps.auths(target.platform) ?? network.auth,
          account: { remoteAccountId: target.targetId, name: target.name },
          tokens,
        });
        if (!shared) return channel;
        // The tokens are the grant's: the channel holds none of its own (nor their expiry).
        return {
          base: {
            ...channel.base,
            grantId: shared.base.grantId,
            tokenExpiresAt: null,
            refreshDueAt: null,
          },
          seal: async () => '',
        };
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
    deps.connectStates.finish(
      stateHash,
      'targets',
      channels,
      await channelLimit(deps, record.accountId),
      shared ?? undefined,
    ),
    () => new ApiError('invalid_state', 'The targets of this connection were already chosen.'),
  );
  return { data: saved.map((result) => channelView(result.channel)) };
};

/**
 * The grant the chosen targets share: one per network account and workspace (a connection made
 * before the account was kept with its state has one of its own).
 */
const sharedGrantOf = (
  deps: Pick<ConnectDeps, 'clock' | 'tokenCipher'>,
  record: ConnectState,
  auth: NetworkAuth,
  tokens: TokenSet,
): GrantToSave => {
  const now = deps.clock.now();
  const grantId = grantIdFor(
    record.workspaceId,
    record.platform,
    record.grantAccountId ?? `connection:${record.stateHash}`,
  );
  return {
    base: {
      grantId,
      accountId: record.accountId,
      workspaceId: record.workspaceId,
      platform: record.platform,
      remoteAccountId: record.grantAccountId ?? '',
      connection: 'connected',
      ...tokenFields(auth.policy, tokens, now),
      serviceUrl: null,
      updatedAt: now.toISOString(),
      createdAt: now.toISOString(),
    },
    seal: () => sealTokens(deps.tokenCipher(), sharedGrantSealId(grantId), tokens),
  };
};
