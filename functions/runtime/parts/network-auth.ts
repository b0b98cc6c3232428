import { SecretsManagerAppCredentials } from '../../adapters/aws/secrets-app-credentials.ts';
import { configuredAppCredentials } from '../../adapters/local/configured-app-credentials.ts';
import type { PlatformId } from '../../domain/platforms/types.ts';
import { networkAuths } from '../../platforms/auth-registry.ts';
import type { AppCredentials } from '../../ports/app-credentials.ts';
import type { NetworkAuth } from '../../ports/network-auth.ts';
import { env } from '../../shared/env.ts';
import { part } from '../compose.ts';
import { outbound, outboundPolicyOf } from './outbound.ts';

export interface NetworkAuthDeps {
  /** Each network's OAuth (or app password) flow; null: the network cannot be connected through the API. */
  auths: (platform: PlatformId) => NetworkAuth | null;
  /** Each network's app credentials (Secrets Manager on AWS, the simulators' preset apps locally). */
  appCredentials: AppCredentials;
}

/** Signing in to the networks: their OAuth flows and our apps' credentials. */
export const networkAuth = part({
  name: 'networkAuth',
  keys: ['auths', 'appCredentials'],
  needs: [outbound],
  build: (deps, { decorators }): NetworkAuthDeps => {
    const appCredentials: AppCredentials =
      env.runtime === 'aws'
        ? new SecretsManagerAppCredentials(env.appSecretPrefix)
        : configuredAppCredentials(() => env.networkAppCredentials);
    return {
      auths: networkAuths({
        baseUrls: env.networkBaseUrls,
        timeoutMs: env.networkTimeoutMs,
        outbound: outboundPolicyOf(deps),
      }),
      appCredentials: decorators.appCredentials?.(appCredentials) ?? appCredentials,
    };
  },
});
