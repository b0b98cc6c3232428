import { channelView } from '../../core/channels/channel-view.ts';
import { httpHandler } from '../pipeline.ts';

/** GET /v1/channels: the workspace's connected accounts. */
export const handler = httpHandler({}, async ({ deps, auth }) => {
  const channels = await deps.accounts.listChannels(auth.workspaceId);
  const data = channels
    .map(channelView)
    .sort(
      (a, b) =>
        a.platform.localeCompare(b.platform) || a.name.localeCompare(b.name) || a.id.localeCompare(b.id),
    );
  return { status: 200, body: { data } };
});
