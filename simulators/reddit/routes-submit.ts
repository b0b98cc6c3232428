import { randomBytes } from 'node:crypto';
import { objectOf, type SimContext, type SimResponse } from '../framework/framework.ts';
import { FLAIR_TEMPLATE, jsonErrors, redditError } from './errors.ts';
import { base36, permalinkOf, type SimRedditPost, storedMarkdown, truthy } from './records.ts';
import type { RedditState } from './state.ts';

/** Submitting: `POST /api/submit` (self, link, image, video) and the gallery submit. */
export const redditSubmitRoutes = (s: RedditState) => {
  const { posts, assets, sockets, switches, userOf, socketHost, form, postLimitEnd } = s;

  const submit = (ctx: SimContext): SimResponse => {
    const params = form(ctx);
    const author = userOf(ctx);
    const sr = (params.sr ?? '').replace(/^\/?r\//i, '');
    const kind = params.kind ?? 'link';
    const title = params.title ?? '';
    const text = params.text ?? '';
    if (!/^[A-Za-z0-9][A-Za-z0-9_]{2,20}$/.test(sr) || /^doesnotexist/i.test(sr)) {
      return jsonErrors([['SUBREDDIT_NOEXIST', "that subreddit doesn't exist", 'sr']]);
    }
    if (!['self', 'link', 'image', 'video', 'videogif'].includes(kind)) {
      return jsonErrors([['INVALID_OPTION', 'that option is not valid', 'kind']]);
    }
    if (title.trim() === '') return jsonErrors([['NO_TEXT', 'we need something here', 'title']]);
    if ([...title].length > 300) return jsonErrors([['TOO_LONG', 'this is too long (max: 300)', 'title']]);
    if ([...text].length > 40000) return jsonErrors([['TOO_LONG', 'this is too long (max: 40000)', 'text']]);
    if (kind === 'self' && /^noself/i.test(sr)) {
      return jsonErrors([['NO_SELFS', "that subreddit doesn't allow text posts", 'sr']]);
    }
    const flairId = params.flair_id ?? null;
    if (flairId !== null && flairId !== FLAIR_TEMPLATE) {
      return jsonErrors([['BAD_FLAIR_TEMPLATE_ID', 'That flair template is not available', 'flair_id']]);
    }
    if (flairId === null && /^flairreq/i.test(sr)) {
      return jsonErrors([
        ['SUBMIT_VALIDATION_FLAIR_REQUIRED', 'Your post must contain post flair.', 'flair'],
      ]);
    }
    const url = params.url ?? '';
    let assetIds: string[] = [];
    if (kind === 'link') {
      if (!/^https?:\/\/[^\s/]+\.[^\s]+$/.test(url))
        return jsonErrors([['BAD_URL', 'you should check that url', 'url']]);
      if (!truthy(params.resubmit)) {
        const earlier = [...posts.values()].find(
          (post) =>
            !post.deleted &&
            post.kind === 'link' &&
            post.subreddit.toLowerCase() === sr.toLowerCase() &&
            post.url === url,
        );
        if (earlier) {
          return jsonErrors([['ALREADY_SUB', 'that link has already been submitted', 'url']]);
        }
      }
    } else if (kind !== 'self') {
      const asset = [...assets.values()].find(
        (candidate) => candidate.location !== null && candidate.location === url,
      );
      if (!asset || asset.account !== author) {
        return jsonErrors([['BAD_URL', 'you should check that url', 'url']]);
      }
      const isVideo = asset.mimetype.startsWith('video/');
      if ((kind === 'image') === isVideo || (kind === 'videogif' && !isVideo)) {
        return jsonErrors([['INVALID_OPTION', `the file is not a ${kind}`, 'kind']]);
      }
      assetIds = [asset.assetId];
      if (kind !== 'image') {
        const poster = params.video_poster_url ?? '';
        const posterAsset = [...assets.values()].find((candidate) => candidate.location === poster);
        if (!posterAsset?.mimetype.startsWith('image/')) {
          return jsonErrors([['NO_VIDEO_POSTER', 'a video post needs a poster image', 'video_poster_url']]);
        }
        assetIds.push(posterAsset.assetId);
      }
    }
    if (Date.now() < postLimitEnd()) {
      const seconds = (postLimitEnd() - Date.now()) / 1000;
      const minutes = Math.max(1, Math.ceil(seconds / 60));
      return jsonErrors(
        [
          [
            'RATELIMIT',
            `Looks like you've been doing that a lot. Take a break for ${minutes} minute${minutes === 1 ? '' : 's'} before trying again.`,
            'ratelimit',
          ],
        ],
        { ratelimit: seconds },
      );
    }
    const lost = ctx.screen(`${title}\n${text}`, author);
    const id = base36();
    const now = Date.now();
    const isMedia = kind !== 'self' && kind !== 'link';
    const post: SimRedditPost = {
      id,
      name: `t3_${id}`,
      author,
      subreddit: sr,
      kind: kind as SimRedditPost['kind'],
      title,
      selftext: isMedia ? storedMarkdown(text) : text,
      sentText: text,
      url: kind === 'self' ? '' : url,
      flairId,
      flairText: params.flair_text ?? null,
      nsfw: truthy(params.nsfw),
      spoiler: truthy(params.spoiler),
      sendReplies: params.sendreplies === undefined ? true : truthy(params.sendreplies),
      createdUtc: now / 1000,
      visibleAt: isMedia
        ? switches.mediaFails
          ? null
          : now + switches.processingMs + switches.listingLagMs
        : now,
      deleted: false,
      assetIds,
      videoPosterUrl: params.video_poster_url ?? null,
      captions: {},
      comments: [],
    };
    if (kind === 'self') post.url = `https://www.reddit.com${permalinkOf(post)}`;
    posts.set(id, post);
    for (const hook of s.onStored) hook(post);
    if (!switches.mediaFails || !isMedia) {
      ctx.record({ kind: 'post', id: post.name, parentId: null, rootId: null, text, account: author });
    }
    if (isMedia) {
      const token = randomBytes(12).toString('hex');
      sockets.set(token, {
        postId: id,
        processedAt: now + switches.processingMs,
        fails: switches.mediaFails,
      });
      return {
        status: 200,
        body: {
          json: {
            errors: [],
            data: {
              user_submitted_page: `https://www.reddit.com/user/${author}/submitted/`,
              // Reddit's is `wss://ws-….wss.redditmedia.com/rte_images/…?m=…`: the simulator's own host.
              websocket_url: `${socketHost.url}/rte_images/${token}?m=sim`,
            },
          },
        },
        lost,
      };
    }
    return {
      status: 200,
      body: {
        json: {
          errors: [],
          data: { url: `https://www.reddit.com${permalinkOf(post)}`, drafts_count: 0, id, name: post.name },
        },
      },
      lost,
    };
  };

  /**
   * `POST /api/submit_gallery_post.json` (a JSON body, unlike /api/submit): 2 to 20 uploaded
   * images as `items[{media_id, caption (≤ 180), outbound_url}]`; answers `{ json: { errors,
   * data: { id, url } } }` at once (no websocket, unlike single media posts).
   */
  const submitGallery = (ctx: SimContext): SimResponse => {
    const body = objectOf(ctx.body);
    if (!body) return redditError(400);
    const author = userOf(ctx);
    const str = (key: string) => (typeof body[key] === 'string' ? (body[key] as string) : undefined);
    const sr = (str('sr') ?? '').replace(/^\/?r\//i, '');
    const title = str('title') ?? '';
    const text = str('text') ?? '';
    if (!/^[A-Za-z0-9][A-Za-z0-9_]{2,20}$/.test(sr) || /^doesnotexist/i.test(sr)) {
      return jsonErrors([['SUBREDDIT_NOEXIST', "that subreddit doesn't exist", 'sr']]);
    }
    if (title.trim() === '') return jsonErrors([['NO_TEXT', 'we need something here', 'title']]);
    if ([...title].length > 300) return jsonErrors([['TOO_LONG', 'this is too long (max: 300)', 'title']]);
    const flairId = str('flair_id') ?? null;
    if (flairId !== null && flairId !== FLAIR_TEMPLATE) {
      return jsonErrors([['BAD_FLAIR_TEMPLATE_ID', 'That flair template is not available', 'flair_id']]);
    }
    if (flairId === null && /^flairreq/i.test(sr)) {
      return jsonErrors([
        ['SUBMIT_VALIDATION_FLAIR_REQUIRED', 'Your post must contain post flair.', 'flair'],
      ]);
    }
    const items = Array.isArray(body.items) ? body.items : [];
    if (items.length < 2 || items.length > 20) {
      return jsonErrors([['GALLERY_ITEM_COUNT', 'A gallery takes 2 to 20 items', 'items']]);
    }
    const captions: Record<string, string> = {};
    const assetIds: string[] = [];
    for (const raw of items) {
      const item = objectOf(raw);
      const asset = typeof item?.media_id === 'string' ? assets.get(item.media_id) : undefined;
      if (
        !asset ||
        asset.account !== author ||
        asset.location === null ||
        !asset.mimetype.startsWith('image/')
      ) {
        return jsonErrors([['MEDIA_ID_INVALID', 'That media is not an uploaded image', 'items']]);
      }
      const caption = item?.caption;
      if (caption !== undefined && (typeof caption !== 'string' || [...caption].length > 180)) {
        return jsonErrors([['TOO_LONG', 'this is too long (max: 180)', 'caption']]);
      }
      if (typeof caption === 'string' && caption !== '') captions[asset.assetId] = caption;
      assetIds.push(asset.assetId);
    }
    if (Date.now() < postLimitEnd()) {
      const seconds = (postLimitEnd() - Date.now()) / 1000;
      return jsonErrors(
        [
          [
            'RATELIMIT',
            `you are doing that too much. try again in ${Math.max(1, Math.ceil(seconds / 60))} minutes.`,
            'ratelimit',
          ],
        ],
        { ratelimit: seconds },
      );
    }
    const lost = ctx.screen(`${title}\n${text}`, author);
    const id = base36();
    const now = Date.now();
    const post: SimRedditPost = {
      id,
      name: `t3_${id}`,
      author,
      subreddit: sr,
      kind: 'gallery',
      title,
      selftext: text,
      sentText: text,
      url: `https://www.reddit.com/gallery/${id}`,
      flairId,
      flairText: str('flair_text') ?? null,
      nsfw: body.nsfw === true,
      spoiler: body.spoiler === true,
      sendReplies: body.sendreplies !== false,
      createdUtc: now / 1000,
      visibleAt: now,
      deleted: false,
      assetIds,
      videoPosterUrl: null,
      captions,
      comments: [],
    };
    posts.set(id, post);
    for (const hook of s.onStored) hook(post);
    ctx.record({ kind: 'post', id: post.name, parentId: null, rootId: null, text, account: author });
    return { status: 200, body: { json: { errors: [], data: { url: post.url, id: post.name } } }, lost };
  };

  return { submit, submitGallery };
};
