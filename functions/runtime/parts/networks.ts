import type { PlatformId } from '../../domain/platforms/types.ts';
import { networkClients } from '../../platforms/registry.ts';
import type { KeyMode } from '../../ports/api-keys.ts';
import type { NetworkClient } from '../../ports/network-client.ts';
import { env } from '../../shared/env.ts';
import { part } from '../compose.ts';
import { outbound, outboundPolicyOf } from './outbound.ts';

/** Every network's API client (and the sandbox's, for test keys). */
export const networks = part({
  name: 'networks',
  keys: ['networks'],
  needs: [outbound],
  build: (deps): { networks: (platform: PlatformId, mode: KeyMode) => NetworkClient } => ({
    networks: networkClients({
      baseUrls: env.networkBaseUrls,
      timeoutMs: env.networkTimeoutMs,
      xConsistencyWindowSeconds: env.xConsistencyWindowSeconds,
      redditConsistencyWindowSeconds: env.redditConsistencyWindowSeconds,
      outbound: outboundPolicyOf(deps),
    }),
  }),
});
