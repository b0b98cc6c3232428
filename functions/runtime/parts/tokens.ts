import { TokenService } from '../../core/channels/token-service.ts';
import { part } from '../compose.ts';
import { channels } from './channels.ts';
import { cipher } from './cipher.ts';
import { networkAuth } from './network-auth.ts';
import { queues } from './queues.ts';

/** Live channels' valid access tokens (refreshed through the networks' OAuth when due). */
export const tokens = part({
  name: 'tokens',
  keys: ['tokens'],
  needs: [channels, cipher, networkAuth, queues],
  // The service keeps the dependencies it was built with (a copy of the view), as the engine does.
  build: (deps, { lazy }): { tokens: () => TokenService } => ({
    tokens: lazy(() => new TokenService({ ...deps })),
  }),
});
