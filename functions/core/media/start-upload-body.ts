import * as z from 'zod';
import { MAX_FILE_NAME_LENGTH } from './formats.ts';

/**
 * Body of POST /v1/media/uploads. A module of its own: building the schema at import runs zod, so
 * in presigned-upload.ts it put zod (about 88 KiB minified) in the bundle of the complete route too,
 * which reads no body.
 */
export const startUploadBody = z.strictObject({
  fileName: z
    .string()
    .min(1)
    .max(MAX_FILE_NAME_LENGTH * 4),
  mimeType: z.string().min(1).max(255),
  size: z.number().int().positive(),
  altText: z.string().nullable().optional(),
});
export type StartUploadBody = z.output<typeof startUploadBody>;
