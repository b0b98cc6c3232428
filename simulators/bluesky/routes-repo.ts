import { objectOf, type SimContext, type SimResponse } from '../framework/framework.ts';
import { blueskyErrors, xrpcError } from './errors.ts';
import { cidOf, didOf, isSimTid, isValidRecordKey, nextTid } from './ids.ts';
import { imagesProblem, postProblem, type StoredRecord } from './lexicon.ts';
import type { BlueskyState } from './state.ts';

/** The repository: `com.atproto.repo.createRecord`, `getRecord`, `deleteRecord`. */
export const blueskyRepoRoutes = (
  s: BlueskyState,
  /** Called with each post stored (the `sim:comments` seeding). */
  onStored: (record: StoredRecord) => void = () => {},
) => {
  const { records, blobs, faults, videoBlobs, profiles, requireFields, blobOwner, authorize } = s;

  const createRecord = (ctx: SimContext): SimResponse => {
    const body = requireFields(ctx, ['repo', 'collection']);
    const did = didOf(body.repo as string);
    const refused = authorize(ctx, did);
    if (refused) return refused;
    if (!(body.repo as string).startsWith('did:')) profiles.set(did, { handle: body.repo as string });
    const collection = body.collection as string;
    const record = objectOf(body.record);
    if (!record) return blueskyErrors.badRequest('Input must have the property "record"');
    if (body.validate === false) return blueskyErrors.badRequest('Unvalidated writes are not yet supported.');
    if (body.rkey !== undefined && (typeof body.rkey !== 'string' || !isValidRecordKey(body.rkey))) {
      return blueskyErrors.badRequest(`Invalid record key: ${String(body.rkey)}`);
    }
    if (record.$type !== collection) {
      return blueskyErrors.badRequest(`Invalid $type: expected ${collection}, got ${String(record.$type)}`);
    }
    if (collection === 'app.bsky.feed.post') {
      // The lexicon declares `key: tid`: a PDS refuses any other key for a post.
      if (typeof body.rkey === 'string' && !isSimTid(body.rkey)) {
        return blueskyErrors.badRequest(
          `Invalid record key for app.bsky.feed.post: Invalid TID string (got ${JSON.stringify(body.rkey)})`,
        );
      }
      const problem = postProblem(record);
      if (problem) return blueskyErrors.badRequest(problem);
      const embed = objectOf(record.embed);
      if (record.embed !== undefined && !embed)
        return blueskyErrors.badRequest('Invalid app.bsky.feed.post record: Record/embed must be an object');
      if (embed?.$type === 'app.bsky.embed.video') {
        const video = objectOf(embed.video);
        const link = objectOf(video?.ref)?.$link;
        if (video?.$type !== 'blob' || typeof link !== 'string')
          return blueskyErrors.badRequest(
            'Invalid app.bsky.feed.post record: Record/embed/video should be a blob ref',
          );
        if (video.mimeType !== 'video/mp4')
          return blueskyErrors.badRequest(
            `Invalid app.bsky.feed.post record: Record/embed/video mime type should be video/mp4 (got ${String(video.mimeType)})`,
          );
        if (embed.alt !== undefined && typeof embed.alt !== 'string')
          return blueskyErrors.badRequest(
            'Invalid app.bsky.feed.post record: Record/embed/alt must be a string',
          );
        if (!videoBlobs.has(link)) return xrpcError(400, 'BlobNotFound', `Could not find blob: ${link}`);
      } else if (embed) {
        if (embed.$type !== 'app.bsky.embed.images') {
          return blueskyErrors.badRequest(
            `Invalid app.bsky.feed.post record: Record/embed $type ${String(embed.$type)} is not supported by this simulator`,
          );
        }
        const problem = imagesProblem(embed, 'Invalid app.bsky.feed.post record:', (cid) =>
          blobs.get(`${blobOwner(ctx)}/${cid}`),
        );
        if (problem) return xrpcError(problem.status, problem.error, problem.message);
      }
    }
    const rkey = (body.rkey as string | undefined) ?? nextTid();
    const outcome = ctx.screen(typeof record.text === 'string' ? record.text : '', did);
    const key = `${did}/${collection}/${rkey}`;
    // A PDS fails a write to a taken record key deep in its repo code: HTTP 500, not a 400.
    if (records.has(key))
      return xrpcError(500, 'InternalServerError', `There is already a value at key: ${collection}/${rkey}`);
    const uri = `at://${key}`;
    const cid = cidOf(record);
    records.set(key, { uri, cid, value: record });
    if (collection === 'app.bsky.feed.post') onStored({ uri, cid, value: record });
    const failing = faults.failAfterStore > 0;
    if (failing) faults.failAfterStore -= 1;
    const reply = objectOf(record.reply);
    const parentUri = (objectOf(reply?.parent)?.uri as string | undefined) ?? null;
    const rootUri = (objectOf(reply?.root)?.uri as string | undefined) ?? null;
    ctx.record({
      kind: reply ? 'reply' : 'post',
      id: uri,
      parentId: parentUri,
      rootId: rootUri,
      text: typeof record.text === 'string' ? record.text : null,
      account: did,
    });
    if (failing) return xrpcError(500, 'InternalServerError', 'Internal Server Error');
    return {
      status: 200,
      body: { uri, cid, commit: { cid: cidOf({ commit: uri }), rev: nextTid() }, validationStatus: 'valid' },
      lost: outcome,
    };
  };

  const getRecord = (ctx: SimContext): SimResponse => {
    for (const name of ['repo', 'collection', 'rkey']) {
      if (!ctx.query.get(name)) return blueskyErrors.badRequest(`Params must have the property "${name}"`);
    }
    const did = didOf(ctx.query.get('repo') as string);
    const key = `${did}/${ctx.query.get('collection')}/${ctx.query.get('rkey')}`;
    const stored = records.get(key);
    if (!stored) return xrpcError(400, 'RecordNotFound', `Could not locate record: at://${key}`);
    return { status: 200, body: { uri: stored.uri, cid: stored.cid, value: stored.value } };
  };

  const deleteRecord = (ctx: SimContext): SimResponse => {
    const body = requireFields(ctx, ['repo', 'collection', 'rkey']);
    const did = didOf(body.repo as string);
    const refused = authorize(ctx, did);
    if (refused) return refused;
    const key = `${did}/${body.collection}/${body.rkey}`;
    const stored = records.get(key);
    // Deleting a record that does not exist is a successful no-op on a PDS.
    if (stored) {
      records.delete(key);
      const reply = objectOf(stored.value.reply);
      ctx.record({
        kind: 'delete',
        id: stored.uri,
        parentId: (objectOf(reply?.parent)?.uri as string | undefined) ?? null,
        rootId: (objectOf(reply?.root)?.uri as string | undefined) ?? null,
        text: null,
        account: did,
      });
    }
    return { status: 200, body: { commit: { cid: cidOf({ delete: key }), rev: nextTid() } } };
  };

  return { createRecord, getRecord, deleteRecord };
};
