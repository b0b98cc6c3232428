import { createHash, randomBytes } from 'node:crypto';
import { objectOf, type SimContext, type SimResponse } from '../framework/framework.ts';
import { numericIdFor } from '../framework/oauth.ts';
import { pinError, pinterestErrors } from './errors.ts';
import { parseForm, sha256 } from './media-files.ts';
import type { PinterestState } from './state.ts';

/** Video media: registering an upload, the S3 form POST, its processing status. */
export const pinterestMediaRoutes = (s: PinterestState) => {
  const { media, switches, site, userOf, settle } = s;

  const registerMedia = (ctx: SimContext): SimResponse => {
    const body = objectOf(ctx.body);
    if (body?.media_type !== 'video') {
      return pinterestErrors.badRequest('Invalid request: media_type must be video.');
    }
    const user = userOf(ctx);
    const mediaId = numericIdFor(`media:${randomBytes(8).toString('hex')}`, 19);
    const key = `uploads/${mediaId.slice(0, 2)}/${mediaId.slice(2, 4)}/2:video:${user.id}:${mediaId}`;
    media.set(mediaId, {
      mediaId,
      owner: user.id,
      status: 'registered',
      key,
      size: null,
      sha256: null,
      contentType: null,
      readyAt: null,
      uploadExpiresAt: Date.now() + switches.uploadLifetimeSeconds * 1000,
      failing: false,
      pins: [],
    });
    const date = new Date()
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d+Z$/, 'Z');
    return {
      status: 201,
      body: {
        media_id: mediaId,
        media_type: 'video',
        upload_url: `${site.baseUrl}/_s3/pinterest-media-upload`,
        upload_parameters: {
          'x-amz-date': date,
          'x-amz-signature': signatureOf(key),
          'x-amz-security-token': randomBytes(12).toString('base64'),
          'x-amz-algorithm': 'AWS4-HMAC-SHA256',
          key,
          policy: Buffer.from(
            JSON.stringify({ expiration: new Date(Date.now() + switches.uploadLifetimeSeconds * 1000) }),
          ).toString('base64'),
          'x-amz-credential': `ASIASIM/${date.slice(0, 8)}/us-east-1/s3/aws4_request`,
          'Content-Type': 'multipart/form-data',
        },
      },
    };
  };
  const secret = randomBytes(16);
  const signatureOf = (key: string) => createHash('sha256').update(secret).update(key).digest('hex');

  const getMedia = (ctx: SimContext): SimResponse => {
    const item = media.get(ctx.params.id as string);
    if (!item || item.owner !== userOf(ctx).id) return pinError(404, 404, 'Media not found.');
    settle(item);
    return { status: 200, body: { media_id: item.mediaId, media_type: 'video', status: item.status } };
  };

  /** The S3 form POST: the upload parameters as fields, then `file`; 204 as S3 answers. */
  const s3Upload = (ctx: SimContext): SimResponse => {
    const s3Error = (status: number, code: string, message: string): SimResponse => ({
      status,
      body: { Error: { Code: code, Message: message } },
    });
    const form = parseForm(ctx.rawBody, ctx.headers['content-type']);
    if (!form?.file)
      return s3Error(
        400,
        'MalformedPOSTRequest',
        'The body of your POST request is not well-formed multipart/form-data.',
      );
    if (form.order[form.order.length - 1] !== 'file') {
      return s3Error(400, 'InvalidArgument', 'The file must be the last field of the form.');
    }
    const key = form.fields.key ?? '';
    const item = [...media.values()].find((candidate) => candidate.key === key);
    if (!item || form.fields['x-amz-signature'] !== signatureOf(key)) {
      return s3Error(403, 'AccessDenied', 'Invalid according to Policy: Policy Condition failed');
    }
    for (const field of ['policy', 'x-amz-credential', 'x-amz-algorithm', 'x-amz-date']) {
      if (!form.fields[field]) return s3Error(400, 'InvalidArgument', `Missing form field ${field}.`);
    }
    if (item.status !== 'registered') return s3Error(403, 'AccessDenied', 'The upload was already used.');
    if (Date.now() >= item.uploadExpiresAt) {
      return s3Error(403, 'AccessDenied', 'Invalid according to Policy: Policy expired.');
    }
    item.size = form.file.bytes.length;
    item.sha256 = sha256(form.file.bytes);
    item.contentType = form.file.contentType;
    item.status = 'processing';
    item.failing = switches.processingFails;
    item.readyAt = Date.now() + switches.processingMs;
    return { status: 204 };
  };

  return { registerMedia, getMedia, s3Upload };
};
