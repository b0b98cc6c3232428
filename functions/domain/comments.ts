/**
 * Comment ids as the API shows them: `cmt_` and the network's own id in base64url, so that any
 * network's id (an at:// URI, a LinkedIn URN with parentheses and commas) is one path segment.
 */
const PREFIX = 'cmt_';
/** The longest network id a comment id may carry: every id the seven networks use is far shorter. */
export const MAX_REMOTE_COMMENT_ID = 512;

export const commentIdOf = (remoteId: string): string =>
  `${PREFIX}${Buffer.from(remoteId, 'utf8').toString('base64url')}`;

/** The network id a comment id carries; null when `id` cannot be one (wrong prefix, not base64url, too long). */
export const remoteCommentId = (id: string): string | null => {
  if (!id.startsWith(PREFIX)) return null;
  const body = id.slice(PREFIX.length);
  if (
    body.length === 0 ||
    body.length > Math.ceil((MAX_REMOTE_COMMENT_ID * 4) / 3) ||
    !/^[A-Za-z0-9_-]+$/.test(body)
  )
    return null;
  const remote = Buffer.from(body, 'base64url').toString('utf8');
  // Only the canonical encoding: one comment has one id.
  return remote.length > 0 && commentIdOf(remote) === id ? remote : null;
};
