import { ApiError } from '../../domain/errors.ts';

/** The parts of a `POST /v1/media` form: the file, and optionally its alt text. */
export interface MediaForm {
  fileName: string;
  /** The part's Content-Type (`text/plain` when the part had none, per RFC 7578). */
  declaredType: string;
  bytes: Uint8Array;
  altText: string | undefined;
}

const FORM_FIELDS = new Set(['file', 'altText']);

const notAForm = () =>
  new ApiError(
    'unsupported_media_type',
    'POST /v1/media takes multipart/form-data with one field `file`; larger files go through POST /v1/media/uploads.',
  );

/**
 * Reads a multipart/form-data body with the runtime's own WHATWG parser (the same as
 * `Request.formData()` in browsers). Exactly one `file` part; an optional `altText` text part;
 * anything else is refused with its name as the field.
 */
export const parseMediaForm = async (
  contentType: string | undefined,
  body: Uint8Array,
): Promise<MediaForm> => {
  if (!contentType || !/^multipart\/form-data\s*;.*\bboundary=/i.test(contentType)) throw notAForm();
  let form: FormData;
  try {
    form = await new Request('http://form.invalid/', {
      method: 'POST',
      headers: { 'content-type': contentType },
      body,
    }).formData();
  } catch {
    throw new ApiError('validation_failed', 'The body is not valid multipart/form-data.', 'file');
  }
  for (const name of new Set(form.keys())) {
    if (!FORM_FIELDS.has(name)) {
      throw new ApiError(
        'validation_failed',
        `Unknown form field ${name}; the form takes \`file\` and optionally \`altText\`.`,
        name,
      );
    }
    if (form.getAll(name).length > 1)
      throw new ApiError('validation_failed', `Send one \`${name}\` per request.`, name);
  }
  const file = form.get('file');
  if (file === null) throw new ApiError('validation_failed', 'The form needs a `file` field.', 'file');
  if (typeof file === 'string') {
    throw new ApiError(
      'validation_failed',
      '`file` must be a file part (a Content-Disposition with a filename).',
      'file',
    );
  }
  const altText = form.get('altText');
  if (altText !== null && typeof altText !== 'string') {
    throw new ApiError('validation_failed', '`altText` must be a text field.', 'altText');
  }
  return {
    fileName: file.name,
    declaredType: file.type,
    bytes: new Uint8Array(await file.arrayBuffer()),
    altText: altText ?? undefined,
  };
};
