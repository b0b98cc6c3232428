import type { SimRoute } from '../framework/framework.ts';
import { googleError } from './errors.ts';
import type { YouTubeState } from './state.ts';

/** The channel (`channels?mine=true`) and its uploads playlist (`playlistItems`). */
export const youtubeChannelRoutes = (s: YouTubeState): SimRoute[] => {
  const { videos, requireScope, channelOf } = s;
  return [
    {
      method: 'GET',
      path: '/youtube/v3/channels',
      handler: (ctx) => {
        requireScope(ctx, 'channels.list');
        const channel = channelOf(ctx);
        if (ctx.query.get('mine') !== 'true')
          return googleError(400, 'missingRequiredParameter', 'No filter selected.');
        return {
          status: 200,
          body: {
            kind: 'youtube#channelListResponse',
            pageInfo: { totalResults: 1, resultsPerPage: 5 },
            items: [
              {
                kind: 'youtube#channel',
                id: channel.id,
                snippet: { title: channel.title, customUrl: channel.customUrl },
                contentDetails: { relatedPlaylists: { likes: '', uploads: `UU${channel.id.slice(2)}` } },
              },
            ],
          },
        };
      },
    },
    {
      method: 'GET',
      path: '/youtube/v3/playlistItems',
      handler: (ctx) => {
        requireScope(ctx, 'playlistItems.list');
        channelOf(ctx);
        const playlistId = ctx.query.get('playlistId') ?? '';
        if (!playlistId.startsWith('UU'))
          return googleError(
            404,
            'playlistNotFound',
            'The playlist identified with the request cannot be found.',
          );
        const account = `UC${playlistId.slice(2)}`;
        const max = Math.min(50, Number(ctx.query.get('maxResults') ?? 5) || 5);
        const items = [...videos.values()]
          .filter((v) => v.account === account)
          .reverse()
          .slice(0, max)
          .map((v) => ({
            kind: 'youtube#playlistItem',
            id: `UExI${v.id}`,
            snippet: {
              publishedAt: v.publishedAt,
              channelId: v.account,
              title: v.title,
              description: v.description,
              playlistId,
              resourceId: { kind: 'youtube#video', videoId: v.id },
            },
          }));
        return {
          status: 200,
          body: {
            kind: 'youtube#playlistItemListResponse',
            items,
            pageInfo: { totalResults: items.length, resultsPerPage: max },
          },
        };
      },
    },
  ];
};
