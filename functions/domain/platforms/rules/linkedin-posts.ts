import type { PlatformLimits, PlatformOption } from '../types.ts';

/**
 * What a LinkedIn post takes, from a member profile (linkedin.ts) or an organization page
 * (linkedin_page.ts): both go through the same Posts, Images, Videos, Documents and Comments APIs.
 * What differs is passed in: who may see the post (`visibility`) and whether the comments can be
 * read. Each call builds a fresh tree.
 */
export const linkedinPostLimits = (
  visibility: Pick<PlatformOption, 'allowedValues' | 'description'>,
  commentsReadable: boolean,
): PlatformLimits => ({
  maxLength: 3000,
  textCounting: 'codepoints',
  maxBlocks: 3,
  continuation: 'comment',
  // Comments (the later blocks) take 1,250 characters and one image (Comments API `content`).
  continuationMaxLength: 1250,
  continuationMedia: { maxMedia: 1, acceptedMimeTypes: ['image/jpeg', 'image/png', 'image/gif'] },
  title: null,
  options: [
    {
      key: 'visibility',
      type: 'choice',
      required: false,
      allowedValues: visibility.allowedValues,
      maxLength: null,
      description: visibility.description,
    },
  ],
  remoteEdit: ['text'],
  supportsRemoteDelete: true,
  acceptedMimeTypes: ['image/jpeg', 'image/png', 'image/gif', 'video/mp4', 'application/pdf'],
  maxMedia: 20,
  // Documents API: PDFs up to 100 MB (and 300 pages).
  maxMediaBytes: { 'application/pdf': 100 * 1024 * 1024 },
  // A post carries up to 20 images (multiImage), or one video, or one document.
  soleMediaTypes: ['video/mp4', 'application/pdf'],
  requiresMedia: false,
  commentsReadable,
  commentsWindowDays: null,
  // A page's comments take what its later blocks take: 1,250 characters and one image.
  commentReplies: commentsReadable
    ? { maxLength: 1250, maxMedia: 1, acceptedMimeTypes: ['image/jpeg', 'image/png', 'image/gif'] }
    : null,
});
