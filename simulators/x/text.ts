import { createHash } from 'node:crypto';
import twitter from 'twitter-text';
import { xIssuedUser } from './oauth.ts';
import type { TweetLink } from './records.ts';

/** Tweet text as X shows it: HTML entities, t.co links, the media link; and the user behind a token. */
/** The simulated user behind a token: a stable numeric id and handle. */
export const xUserForToken = (token: string) => {
  const issued = xIssuedUser(token);
  if (issued) return issued;
  const hash = createHash('sha256').update(token).digest();
  const id = (hash.readBigUInt64BE(0) >> 8n).toString();
  return { id, username: `sim_${hash.toString('hex').slice(0, 8)}`, name: 'Simulated X user' };
};

/** X returns `&`, `<` and `>` in tweet text as HTML entities. */
export const escapeText = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** How the text is shown: each link X finds (twitter-text's rules, X's own) replaced by a t.co link. */
export const shorten = (id: string, text: string): { shown: string; links: TweetLink[] } => {
  const links: TweetLink[] = [];
  let shown = '';
  let at = 0;
  twitter.extractUrlsWithIndices(text).forEach(({ url, indices }, i) => {
    const digest = createHash('sha256')
      .update(`${id}/${i}`)
      .digest('base64')
      .replace(/[^A-Za-z0-9]/g, '');
    const tco = `https://t.co/${digest.slice(0, 10)}`;
    shown += text.slice(at, indices[0]);
    // Indices count code points, as X's do.
    const start = [...shown].length;
    shown += tco;
    at = indices[1];
    const expanded = /^https?:\/\//i.test(url) ? url : `http://${url}`;
    const display = url.replace(/^https?:\/\//i, '');
    links.push({
      url: tco,
      expanded_url: expanded,
      display_url: display.length > 26 ? `${display.slice(0, 25)}…` : display,
      start,
      end: start + tco.length,
    });
  });
  return { shown: shown + text.slice(at), links };
};

/**
 * X appends one t.co link to a tweet with media (the media's page), listed in `entities.urls` with
 * the media key: the text read back is longer than the text posted.
 */
export const withMediaLink = (
  shortened: { shown: string; links: TweetLink[] },
  id: string,
  username: string,
  mediaIds: string[],
): { shown: string; links: TweetLink[] } => {
  if (mediaIds.length === 0) return shortened;
  const digest = createHash('sha256')
    .update(`${id}/media`)
    .digest('base64')
    .replace(/[^A-Za-z0-9]/g, '');
  const tco = `https://t.co/${digest.slice(0, 10)}`;
  const prefix = shortened.shown === '' ? '' : `${shortened.shown} `;
  const start = [...prefix].length;
  return {
    shown: `${prefix}${tco}`,
    links: [
      ...shortened.links,
      {
        url: tco,
        expanded_url: `https://x.com/${username}/status/${id}/photo/1`,
        display_url: `pic.x.com/${digest.slice(0, 10)}`,
        start,
        end: start + tco.length,
        media_key: `3_${mediaIds[0]}`,
      },
    ],
  };
};
