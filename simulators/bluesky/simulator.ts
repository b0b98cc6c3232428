import { seedComments, simCommentRoutes } from '../framework/comments.ts';
import { objectOf, type SimContext, type SimResponse, startSimulator } from '../framework/framework.ts';
import { requestSpecFor } from '../framework/spec-validation.ts';
import { blueskyErrors } from './errors.ts';
import { simDidForHandle } from './ids.ts';
import { VIDEO_MAX_BYTES } from './lexicon.ts';
import { blueskyOAuthSimulator } from './oauth.ts';
import { type BlueskySimulator, type BlueskySimulatorOptions, isUnresolvableSimHandle } from './records.ts';
import { blueskyBlobRoutes } from './routes-blobs.ts';
import { blueskyRepoRoutes } from './routes-repo.ts';
import { blueskyThreadRoutes } from './routes-thread.ts';
import { blueskyState } from './state.ts';

export { blueskyErrors } from './errors.ts';
export { isValidRecordKey, simDidForHandle } from './ids.ts';
export { IMAGE_MAX_BYTES, type StoredBlob, VIDEO_MAX_BYTES } from './lexicon.ts';
export {
  type BlueskySimulator,
  type BlueskySimulatorOptions,
  isUnresolvableSimHandle,
  type SimStoredRecord,
} from './records.ts';
export { blueskyHandleOf } from './routes-thread.ts';
/**
 * A local Bluesky PDS for `app.bsky.feed.post` records: `com.atproto.repo.createRecord`,
 * `getRecord` and `deleteRecord` over XRPC, `com.atproto.repo.uploadBlob` and
 * `com.atproto.identity.resolveHandle`, `com.atproto.server.getServiceAuth`, and the video
 * service's `app.bsky.video.uploadVideo` / `getJobStatus` (a job completes after two polls; a
 * repeated upload is 409 `already_exists` with its job), with the PDS's error bodies (`{ error, message }`),
 * its record-key checks (the syntax, and a TID for posts: `app.bsky.feed.post` declares
 * `key: tid`), lexicon checks on posts (300 graphemes and 3000 UTF-8 bytes, datetime, at most 3
 * langs, strong refs, facets, `app.bsky.embed.images` with at most 4 images of at most
 * 2,000,000 bytes each, every blob uploaded first by the same account), HTTP 500 "There is already
 * a value at key" for a taken record key (as a PDS answers it), 413 for a blob over the upload
 * limit, `ratelimit-*` headers on 429, and the
 * PDS's token answers (an expired or unverifiable access JWT is HTTP 400 `ExpiredToken` /
 * `InvalidToken`; a missing one 401 `AuthMissing`). A repo may be a DID or a handle (a handle maps
 * to a stable `did:plc`). When the token is a JWT, its `sub` must be the repo's DID.
 *
 * Comments (routes-thread.ts): `app.bsky.feed.getPostThread` and `getPosts` as the AppView answers
 * them (a thread cut at `depth`, no cursor, `#blockedPost` for a reply the viewer may not see), and
 * the common comment hooks (`POST /_sim/comments`, `/_sim/comments/state`; a post with
 * `sim:comments` gets three replies from accounts on bsky.social).
 */

export const startBlueskySimulator = async (
  options: BlueskySimulatorOptions = {},
): Promise<BlueskySimulator> => {
  const s = blueskyState(options);
  const { records, blobs, faults, jobs, videoBlobs, profiles, blocked } = s;
  const thread = blueskyThreadRoutes(s);
  const { createRecord, getRecord, deleteRecord } = blueskyRepoRoutes(s, (record) =>
    seedComments(
      thread.store,
      record.uri,
      typeof record.value.text === 'string' ? record.value.text : '',
      new Date(typeof record.value.createdAt === 'string' ? record.value.createdAt : Date.now()),
    ),
  );
  const { uploadBlob, getServiceAuth, uploadVideo, getJobStatus } = blueskyBlobRoutes(s);
  const resolveHandle = (ctx: SimContext): SimResponse => {
    const handle = ctx.query.get('handle');
    if (!handle) return blueskyErrors.badRequest('Params must have the property "handle"');
    if (!/^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/i.test(handle)) {
      return blueskyErrors.badRequest(`Error: handle must be a valid handle`);
    }
    if (isUnresolvableSimHandle(handle)) return blueskyErrors.badRequest('Unable to resolve handle');
    return { status: 200, body: { did: simDidForHandle(handle) } };
  };

  const failAfterStoreRoute = (ctx: SimContext): SimResponse => {
    const count = Number(objectOf(ctx.body)?.count ?? 1);
    if (!Number.isInteger(count) || count < 0)
      return blueskyErrors.badRequest('Send { "count": <non-negative integer> }');
    faults.failAfterStore = count;
    return { status: 204 };
  };

  const sim = await startSimulator({
    name: 'Bluesky',
    errors: blueskyErrors,
    spec: requestSpecFor('bluesky'),
    port: options.port,
    holdMs: options.holdMs,
    onReset: () => {
      records.clear();
      blobs.clear();
      jobs.clear();
      videoBlobs.clear();
      profiles.clear();
      blocked.clear();
      faults.failAfterStore = 0;
    },
    oauth: blueskyOAuthSimulator({ didForHandle: simDidForHandle, lifetimes: options.oauth?.lifetimes }),
    routes: [
      { method: 'POST', path: '/xrpc/com.atproto.repo.createRecord', handler: createRecord },
      // Public on a real PDS: reading a record needs no token.
      { method: 'GET', path: '/xrpc/com.atproto.repo.getRecord', auth: false, handler: getRecord },
      { method: 'POST', path: '/xrpc/com.atproto.repo.deleteRecord', handler: deleteRecord },
      // The AppView's reads, proxied by the PDS (they need the account's token there).
      { method: 'GET', path: '/xrpc/app.bsky.feed.getPosts', handler: thread.getPosts },
      { method: 'GET', path: '/xrpc/app.bsky.feed.getPostThread', handler: thread.getPostThread },
      ...simCommentRoutes(thread.store),
      { method: 'POST', path: '/xrpc/com.atproto.repo.uploadBlob', rawBody: true, handler: uploadBlob },
      {
        method: 'GET',
        path: '/xrpc/com.atproto.identity.resolveHandle',
        auth: false,
        handler: resolveHandle,
      },
      { method: 'GET', path: '/xrpc/com.atproto.server.getServiceAuth', handler: getServiceAuth },
      // The video service (video.bsky.app), served on the same address.
      // `app.bsky.embed.video` takes an MP4 of at most 100,000,000 bytes (lexicon `maxSize`).
      {
        method: 'POST',
        path: '/xrpc/app.bsky.video.uploadVideo',
        rawBody: true,
        maxBodyBytes: VIDEO_MAX_BYTES,
        handler: uploadVideo,
      },
      { method: 'GET', path: '/xrpc/app.bsky.video.getJobStatus', auth: false, handler: getJobStatus },
      // Inspection: the stored records with their embeds, and the uploaded blobs.
      {
        method: 'GET',
        path: '/_sim/bluesky/records',
        auth: false,
        handler: () => ({ status: 200, body: { data: [...records.values()] } }),
      },
      {
        method: 'GET',
        path: '/_sim/bluesky/blobs',
        auth: false,
        handler: () => ({ status: 200, body: { data: [...blobs.values()] } }),
      },
      // Test control: the next createRecord calls store, then answer 500.
      { method: 'POST', path: '/_sim/bluesky/fail-after-store', auth: false, handler: failAfterStoreRoute },
    ],
  });
  return {
    ...sim,
    failAfterStore: (count) => {
      faults.failAfterStore = count;
    },
    blobs: () => [...blobs.values()].map((blob) => ({ ...blob })),
    storedRecords: () => [...records.values()].map((r) => structuredClone(r)),
  };
};
