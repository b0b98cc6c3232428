import { channelView } from '../../core/channels/channel-view.ts';
import type { Composed } from '../../runtime/compose.ts';
import { channels } from '../../runtime/parts/channels.ts';
import { type HttpRequest, httpHandler } from '../pipeline.ts';

/** What the route composes; the dashboard's route (http/account/) composes the same. */
export const listChannelsUses = [channels] as const;

/** GET /v1/channels: the workspace's connected accounts. */
export const listChannelsRoute = async ({
  deps,
  auth,
}: HttpRequest<undefined, Composed<typeof listChannelsUses>>) => {
  const data = (await deps.channels.listChannels(auth.workspaceId))
    .map(channelView)
    .sort(
      (a, b) =>
        a.platform.localeCompare(b.platform) || a.name.localeCompare(b.name) || a.id.localeCompare(b.id),
    );
  return { status: 200, body: { data } };
};

export const handler = httpHandler({ uses: listChannelsUses }, listChannelsRoute);
