import { dynamoChannelStore } from '../../adapters/aws/dynamo/channels.ts';
import { dynamoGrantStore } from '../../adapters/aws/dynamo/grants.ts';
import type { ChannelStore } from '../../ports/channels.ts';
import type { GrantStore } from '../../ports/grants.ts';
import { part } from '../compose.ts';

export interface ChannelDeps {
  channels: ChannelStore;
  /** The shared grants some channels take their tokens from. */
  grants: GrantStore;
}

/** Connected channels and the shared grants they use, in the table. */
export const channels = part({
  name: 'channels',
  keys: ['channels', 'grants'],
  build: ({ table }): ChannelDeps => ({
    channels: dynamoChannelStore(table),
    grants: dynamoGrantStore(table),
  }),
});
