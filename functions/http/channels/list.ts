import { channelView } from '../../core/channels/channel-view.ts';
import { channels } from '../../runtime/parts/channels.ts';
import { httpHandler } from '../pipeline.ts';

/** GET /v1/channels: the workspace's connected accounts. */
export const handler = httpHandler({ uses: [channels] }, async ({ deps, auth }) => {
  const data = (await deps.channels.listChannels(auth.workspaceId))
    .map(channelView)
    .sort(
      (a, b) =>
        a.platform.localeCompare(b.platform) || a.name.localeCompare(b.name) || a.id.localeCompare(b.id),
    );
  return { status: 200, body: { data } };
});
