import { DynamoClaimStore } from '../../adapters/aws/dynamo/claims.ts';
import { startTracking, trackerFor } from '../../core/metrics/collect.ts';
import { type PublishingDeps, PublishingEngine } from '../../core/publishing/engine.ts';
import type { ClaimStore } from '../../ports/publishing.ts';
import { part } from '../compose.ts';
import { channels } from './channels.ts';
import { cipher } from './cipher.ts';
import { media } from './media.ts';
import { mediaUrls } from './media-urls.ts';
import { metrics } from './metrics.ts';
import { networks } from './networks.ts';
import { posts } from './posts.ts';
import { queues } from './queues.ts';
import { tags } from './tags.ts';
import { tokens } from './tokens.ts';

export interface PublishingPartDeps {
  claims: ClaimStore;
  publishing: () => PublishingEngine;
  /** Starts a channel's metrics tracking once it is live. */
  onChannelLive: NonNullable<PublishingDeps['onChannelLive']>;
}

/** The publishing engine: claims, network sends, outcomes, and what follows a channel going live. */
export const publishing = part({
  name: 'publishing',
  keys: ['claims', 'publishing', 'onChannelLive'],
  needs: [posts, channels, tags, media, mediaUrls, queues, cipher, tokens, networks, metrics],
  build: (deps, { lazy }): PublishingPartDeps => {
    const claims = new DynamoClaimStore(deps.table);
    // Tracking reads the view when it runs, so it sees what is in place then.
    const onChannelLive: PublishingPartDeps['onChannelLive'] = (post, channelId) =>
      startTracking(deps, post, channelId);
    return {
      claims,
      onChannelLive,
      // The engine keeps the dependencies it was built with (a copy of the view).
      publishing: lazy(
        () =>
          new PublishingEngine({
            ...deps,
            claims,
            onChannelLive,
            // The tracking starts in the write that makes a channel live.
            trackerFor: (post, channelId) => trackerFor(deps.cadence, post, channelId),
          }),
      ),
    };
  },
});
