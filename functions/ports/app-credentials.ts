import type { PlatformId } from '../domain/platforms/types.ts';
import type { OAuthApp } from './network-auth.ts';

/**
 * Each network's app credentials (client id and secret): one Secrets Manager secret per network on
 * AWS (created empty by the stateful stack), the simulators' preset apps locally. null: the network
 * has no credentials configured (its secret is empty), so it cannot be connected.
 */
export interface AppCredentials {
  get(platform: PlatformId): Promise<OAuthApp | null>;
}

/** What app-password networks (Bluesky) are given where the port asks for an app: they have none. */
export const NO_APP: OAuthApp = { clientId: '', clientSecret: '' };

/** The network's app, or null when an OAuth network has none configured (app-password networks need none). */
export const appFor = async (
  credentials: AppCredentials,
  platform: PlatformId,
  kind: 'oauth2' | 'app_password',
): Promise<OAuthApp | null> => (await credentials.get(platform)) ?? (kind === 'app_password' ? NO_APP : null);
