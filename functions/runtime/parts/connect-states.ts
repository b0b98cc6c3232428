import { DynamoConnectStateStore } from '../../adapters/aws/dynamo/connect-states.ts';
import type { ConnectStateStore } from '../../ports/connect-states.ts';
import { part } from '../compose.ts';

/** Connections in progress (OAuth states and the targets waiting to be chosen), in the table. */
export const connectStates = part({
  name: 'connectStates',
  keys: ['connectStates'],
  build: ({ table }): { connectStates: ConnectStateStore } => ({
    connectStates: new DynamoConnectStateStore(table),
  }),
});
