import type { PlatformId } from '../platforms/types.ts';
import type { OAuthApp } from './network-auth.ts';

/**
 * Each network's app credentials (client id and secret): one Secrets Manager secret per network on
 * AWS (created empty by the stateful stack), the simulators' preset apps locally. null: the network
 * has no credentials configured (its secret is empty), so it cannot be connected.
 */
export interface AppCredentials {
  get(platform: PlatformId): Promise<OAuthApp | null>;
}
