import { createHash, randomBytes } from 'node:crypto';
import { headerOf, type SimContext, type SimResponse } from '../framework/framework.ts';
import { FLAIR_TEMPLATE } from './errors.ts';
import type { RedditState } from './state.ts';

/** Media: the upload lease (`/api/media/asset.json`), the S3 upload slot, and the subreddit's flairs. */
export const redditMediaRoutes = (s: RedditState) => {
  const { assets, userOf, form } = s;

  const mediaAsset = (ctx: SimContext): SimResponse => {
    const params = form(ctx);
    const filepath = params.filepath ?? '';
    const mimetype = params.mimetype ?? '';
    if (filepath === '' || !/^(image\/(jpeg|png|gif)|video\/(mp4|quicktime))$/.test(mimetype)) {
      return {
        status: 400,
        body: {
          explanation: `Invalid mimetype ${mimetype || '(none)'}`,
          message: 'Bad Request',
          reason: 'BAD_MIMETYPE',
        },
      };
    }
    const assetId = randomBytes(8).toString('hex');
    const key = `rte_images/${assetId}/${filepath.replace(/[^\w.-]/g, '_')}`;
    assets.set(assetId, {
      assetId,
      account: userOf(ctx),
      filepath,
      mimetype,
      key,
      uploadedBytes: null,
      location: null,
    });
    const host = headerOf(ctx.headers, 'host') ?? '127.0.0.1';
    return {
      status: 200,
      body: {
        args: {
          action: `//${host}/_s3/reddit-uploaded-media`,
          fields: [
            { name: 'acl', value: 'public-read' },
            { name: 'key', value: key },
            { name: 'X-Amz-Credential', value: 'AKIASIMULATED/20261125/us-east-1/s3/aws4_request' },
            { name: 'X-Amz-Algorithm', value: 'AWS4-HMAC-SHA256' },
            { name: 'X-Amz-Date', value: '20261125T000000Z' },
            { name: 'success_action_status', value: '201' },
            { name: 'content-type', value: mimetype },
            { name: 'x-amz-storage-class', value: 'STANDARD' },
            { name: 'x-amz-meta-ext', value: filepath.split('.').pop() ?? '' },
            { name: 'policy', value: Buffer.from(JSON.stringify({ key })).toString('base64') },
            { name: 'X-Amz-Signature', value: createHash('sha256').update(key).digest('hex') },
          ],
        },
        asset: {
          asset_id: assetId,
          processing_state: 'incomplete',
          payload: { filepath },
          websocket_url: `wss://ws-${assetId}.wss.redditmedia.com/rte_images/${assetId}?m=sim`,
        },
      },
    };
  };

  const s3Error = (status: number, code: string, message: string): SimResponse => ({
    status,
    body: { Error: { Code: code, Message: message } },
  });

  /** The S3 upload slot: a multipart POST whose fields come first and the file last. */
  const s3Upload = async (ctx: SimContext): Promise<SimResponse> => {
    const type = headerOf(ctx.headers, 'content-type') ?? '';
    if (!/^multipart\/form-data;\s*boundary=/i.test(type)) {
      return s3Error(
        412,
        'PreconditionFailed',
        'Bucket POST must be of the enclosure-type multipart/form-data',
      );
    }
    let data: FormData;
    try {
      data = await new Response(ctx.rawBody, { headers: { 'content-type': type } }).formData();
    } catch {
      return s3Error(
        400,
        'MalformedPOSTRequest',
        'The body of your POST request is not well-formed multipart/form-data.',
      );
    }
    const names = [...data.keys()];
    if (names[names.length - 1] !== 'file') {
      return s3Error(
        400,
        'InvalidArgument',
        'Bucket POST must contain a field named file, as the last field',
      );
    }
    const key = data.get('key');
    const asset = [...assets.values()].find((candidate) => candidate.key === key);
    if (!asset || data.get('X-Amz-Signature') === null || data.get('policy') === null) {
      return s3Error(403, 'AccessDenied', 'Invalid according to Policy: Policy Condition failed');
    }
    if (data.get('content-type') !== asset.mimetype) {
      return s3Error(
        403,
        'AccessDenied',
        'Invalid according to Policy: Policy Condition failed: ["eq", "$Content-Type"]',
      );
    }
    const file = data.get('file');
    if (!(file instanceof Blob) || file.size === 0) {
      return s3Error(400, 'EntityTooSmall', 'Your proposed upload is smaller than the minimum allowed size');
    }
    asset.uploadedBytes = file.size;
    asset.location = `https://reddit-uploaded-media.s3-accelerate.amazonaws.com/${encodeURIComponent(asset.key)}`;
    // S3 answers XML; the simulator's framework speaks JSON, so the same fields travel as JSON and
    // in the Location header (which is what Herald's client reads).
    return {
      status: 201,
      headers: { location: asset.location },
      body: { PostResponse: { Location: asset.location, Bucket: 'reddit-uploaded-media', Key: asset.key } },
    };
  };

  const flairs = (ctx: SimContext): SimResponse => ({
    status: 200,
    body: [
      {
        id: FLAIR_TEMPLATE,
        text: 'Discussion',
        text_editable: true,
        type: 'text',
        subreddit: ctx.params.sr,
      },
    ],
  });

  return { mediaAsset, s3Upload, flairs };
};
