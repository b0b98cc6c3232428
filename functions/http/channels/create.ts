import { connectWithAppPassword } from '../../core/channels/connect.ts';
import { createChannelBody } from '../../core/channels/schema.ts';
import { accounts } from '../../runtime/parts/accounts.ts';
import { channels } from '../../runtime/parts/channels.ts';
import { cipher } from '../../runtime/parts/cipher.ts';
import { networkAuth } from '../../runtime/parts/network-auth.ts';
import { outbound } from '../../runtime/parts/outbound.ts';
import { env } from '../../shared/env.ts';
import { httpHandler } from '../pipeline.ts';

/** Bluesky's default PDS entry point (the local simulator's address locally). */
const defaultService = () => env.networkBaseUrls.bluesky ?? 'https://bsky.social';

/** POST /v1/channels: connects a Bluesky account with an app password (201 new, 200 reconnected). */
export const handler = httpHandler(
  { keys: 'live', body: createChannelBody, uses: [accounts, channels, networkAuth, cipher, outbound] },
  async ({ deps, auth, body }) => {
    const { created, channel } = await connectWithAppPassword(deps, auth, body, defaultService());
    return { status: created ? 201 : 200, body: channel };
  },
);
