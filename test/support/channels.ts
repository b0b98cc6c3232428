import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { openTokens } from '../../functions/core/channels/tokens.ts';
import type { PlatformId } from '../../functions/domain/platforms/types.ts';
import type { TestRuntime } from './runtime.ts';

/** Where the runtime's simulator of `platform` listens. */
export const simUrl = (rt: TestRuntime, platform: PlatformId): string =>
  rt.simulators.byPlatform.get(platform)?.url as string;

const simOAuthControl = async (rt: TestRuntime, platform: PlatformId, path: string, body?: unknown) => {
  const res = await fetch(`${simUrl(rt, platform)}/_sim/oauth/${path}`, {
    method: 'POST',
    ...(body === undefined
      ? {}
      : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  expect(res.status).toBe(204);
};

/** Every access token the network's simulator issued expires now (its refresh tokens stay valid). */
export const expireTokens = (rt: TestRuntime, platform: PlatformId) =>
  simOAuthControl(rt, platform, 'expire');

/** The lifetimes of the tokens the network's simulator issues from now on (null: its default). */
export const setTokenLifetimes = (
  rt: TestRuntime,
  platform: PlatformId,
  lifetimes: { accessSeconds?: number | null; refreshSeconds?: number | null },
) => simOAuthControl(rt, platform, 'lifetimes', lifetimes);

/**
 * The consent flow up to the client's redirectUrl (as `user`, a new one when not given): the
 * query the browser lands with (`connectCode` and `state`, or `error`).
 */
export const consentOAuth = async (
  rt: TestRuntime,
  platform: PlatformId,
  options: { key?: string; user?: string } = {},
): Promise<URLSearchParams> => {
  const start = await rt.api('/channels/connect', {
    method: 'POST',
    ...(options.key ? { key: options.key } : {}),
    body: { platform, redirectUrl: 'https://client.example/done' },
  });
  expect(start.status, start.text).toBe(201);
  const authorize = new URL(start.body.authorizeUrl);
  authorize.searchParams.set('sim_user', options.user ?? `${platform[0]}${randomBytes(3).toString('hex')}`);
  const atNetwork = await fetch(authorize, { redirect: 'manual' });
  const atHerald = await fetch(atNetwork.headers.get('location') as string, { redirect: 'manual' });
  const landed = new URL(atHerald.headers.get('location') as string);
  expect(landed.searchParams.get('state')).toBe(start.body.state);
  return landed.searchParams;
};

/**
 * A channel of an OAuth network (one without targets) connected through the consent flow and
 * completed with the connect code (in the workspace of `key`, when given).
 */
export const connectOAuth = async (rt: TestRuntime, platform: PlatformId, key?: string): Promise<string> => {
  const landed = await consentOAuth(rt, platform, key ? { key } : {});
  expect(landed.get('error')).toBeNull();
  const complete = await rt.api('/channels/connect/complete', {
    method: 'POST',
    ...(key ? { key } : {}),
    body: { connectCode: landed.get('connectCode') },
  });
  expect(complete.status, complete.text).toBe(201);
  return complete.body.id as string;
};

/** The channel as stored: its connection, token version and opened tokens. */
export const storedChannel = async (rt: TestRuntime, workspaceId: string, channelId: string) => {
  const deps = rt.container.deps;
  const record = await deps.channels.getChannel(workspaceId, channelId);
  if (!record) throw new Error(`channel ${channelId} not found`);
  const tokens = await openTokens(deps.tokenCipher(), channelId, record.tokenCiphertext);
  return { connection: record.connection, version: record.tokenVersion ?? 0, tokens };
};
