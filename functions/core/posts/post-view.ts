import type { PostRecord } from './model.ts';

/**
 * A post as GET /v1/posts/{id} returns it: spec 2.2 plus `mode`, `createdAt`, `updatedAt`,
 * `tags`, and per channel `title`, `postType`, `options`, per block `mediaIds` and `mediaAltText`.
 * Webhook events carry this same shape.
 */
export const postView = (post: PostRecord, tagNames: ReadonlyMap<string, string>) => ({
  id: post.postId,
  status: post.status,
  mode: post.mode,
  scheduledAt: post.scheduledAt,
  publishedAt: post.publishedAt,
  createdAt: post.createdAt,
  updatedAt: post.updatedAt,
  tags: post.tagIds.map((id) => ({ id, name: tagNames.get(id) ?? null })),
  channels: post.channels.map((channel) => ({
    channelId: channel.channelId,
    platform: channel.platform,
    status: channel.status,
    error: channel.error,
    remoteUrl: channel.remoteUrl,
    title: channel.title,
    postType: channel.postType,
    options: channel.options,
    blocks: channel.blocks.map((block) => ({
      content: block.content,
      mediaIds: block.mediaIds,
      mediaAltText: block.mediaAltText,
      remoteUrl: block.remoteUrl,
    })),
  })),
});

export type PostView = ReturnType<typeof postView>;
