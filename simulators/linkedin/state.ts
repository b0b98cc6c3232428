import {
  headerOf,
  objectOf,
  type SimContext,
  SimHttpError,
  type SimResponse,
} from '../framework/framework.ts';
import { linkedInError, linkedInErrors } from './errors.ts';
import { linkedInVersionActive } from './formats.ts';
import { linkedInMediaSimulator } from './media.ts';
import { linkedInAccessDenied, linkedInOAuthSimulator, simLinkedInOrganizations } from './oauth.ts';
import type { LinkedInSimulatorOptions, SimPostContent, StoredPost } from './records.ts';

/** The LinkedIn simulator's in-memory posts, its media half, and the checks every route shares (headers, scopes, actors, content). */
export const linkedInState = async (options: LinkedInSimulatorOptions) => {
  const posts = new Map<string, StoredPost>();
  const now = options.now ?? (() => new Date());
  const files = linkedInMediaSimulator(linkedInError, options.media);
  await files.start();
  const oauth = linkedInOAuthSimulator(options.oauth);

  /** The grant behind the request's token when the OAuth half issued it; null for other tokens. */
  const grantOf = (ctx: SimContext) => (ctx.token ? oauth.grantOf(ctx.token) : null);
  const isOrganization = (urn: string) => urn.startsWith('urn:li:organization:');
  /** Refuses the call unless the token's grant holds one of `anyOf` (tokens the sim did not issue pass). */
  const requireScope = (ctx: SimContext, anyOf: string[], resource: string) => {
    const grant = grantOf(ctx);
    if (grant && !anyOf.some((scope) => grant.scopes.includes(scope))) {
      throw new SimHttpError(
        linkedInAccessDenied(`${resource}.${headerOf(ctx.headers, 'linkedin-version') ?? 'NO_VERSION'}`),
      );
    }
  };
  /**
   * Acting as `urn` (an author, a comment's actor, an upload's owner): the write scope of its kind,
   * and, for a token the sim issued, its own member or a page that member administers.
   */
  const requireActor = (ctx: SimContext, urn: string, resource: string) => {
    requireScope(ctx, isOrganization(urn) ? ['w_organization_social'] : ['w_member_social'], resource);
    const grant = grantOf(ctx);
    if (!grant) return;
    const member = grant.account.id;
    const allowed = isOrganization(urn)
      ? simLinkedInOrganizations(member).some((org) => `urn:li:organization:${org.id}` === urn)
      : urn === `urn:li:person:${member}`;
    if (!allowed) {
      throw new SimHttpError(
        linkedInError(403, 'ACCESS_DENIED', `Member ${member} cannot act as ${urn}`, 100),
      );
    }
  };
  /** Reading what `author` wrote: `r_organization_social` for a page, `r_member_social` for a member. */
  const requireReader = (ctx: SimContext, author: string, resource: string) =>
    requireScope(ctx, isOrganization(author) ? ['r_organization_social'] : ['r_member_social'], resource);

  /** Versioned APIs need both headers; LinkedIn refuses the call without them. */
  const checkHeaders = (ctx: SimContext) => {
    // LinkedIn answers both a missing and a sunset (or not yet released) version with 426.
    const version = headerOf(ctx.headers, 'linkedin-version');
    if (!version) {
      throw new SimHttpError(
        linkedInError(
          426,
          'VERSION_MISSING',
          'A version must be present. Please specify a version by adding the LinkedIn-Version header.',
        ),
      );
    }
    if (!linkedInVersionActive(version, now())) {
      throw new SimHttpError(
        linkedInError(426, 'NONEXISTENT_VERSION', `Requested version ${version} is not active`),
      );
    }
    if (headerOf(ctx.headers, 'x-restli-protocol-version') !== '2.0.0') {
      throw new SimHttpError(
        linkedInError(
          400,
          'ILLEGAL_ARGUMENT',
          'X-Restli-Protocol-Version 2.0.0 is required for this resource',
        ),
      );
    }
  };

  const livePost = (urn: string): StoredPost => {
    const post = posts.get(urn);
    if (!post || post.deleted) throw new SimHttpError(linkedInErrors.notFound(`Post ${urn} does not exist`));
    return post;
  };

  /**
   * A post's `content`: `media` (one image, video or document; a document needs a title) or
   * `multiImage` (2 to 20 images), each file AVAILABLE and the author's; alt text up to 4,086
   * characters. Null without content; LinkedIn's error answer when it is wrong.
   */
  const postContent = (raw: unknown, author: string): SimPostContent | SimResponse | null => {
    if (raw === undefined) return null;
    const content = objectOf(raw);
    const bad = (message: string) =>
      linkedInError(422, 'UNPROCESSABLE_ENTITY', `ERROR :: /content :: ${message}`);
    const altOf = (value: unknown) => {
      if (value === undefined) return undefined;
      if (typeof value !== 'string' || value.length > 4086)
        throw new SimHttpError(bad('altText must be a string of at most 4086 characters'));
      return value;
    };
    const single = objectOf(content?.media);
    const multi = objectOf(content?.multiImage);
    if (single && !multi) {
      const file = files.usable(single.id, author, ['image', 'video', 'document']);
      if (!('urn' in file)) return file;
      if (file.kind === 'document' && (typeof single.title !== 'string' || single.title === '')) {
        return bad('a document post needs content.media.title');
      }
      return {
        media: {
          id: file.urn,
          ...(single.altText !== undefined ? { altText: altOf(single.altText) as string } : {}),
          ...(typeof single.title === 'string' ? { title: single.title } : {}),
        },
      };
    }
    if (multi && !single) {
      const images = multi.images;
      if (!Array.isArray(images) || images.length < 2 || images.length > 20) {
        return bad('multiImage takes 2 to 20 images');
      }
      const out: { id: string; altText?: string }[] = [];
      for (const image of images) {
        const entry = objectOf(image);
        const file = files.usable(entry?.id, author, ['image']);
        if (!('urn' in file)) return file;
        const altText = altOf(entry?.altText);
        out.push({ id: file.urn, ...(altText !== undefined ? { altText } : {}) });
      }
      return { multiImage: { images: out } };
    }
    return bad('content takes exactly one of media or multiImage');
  };

  return {
    posts,
    now,
    files,
    oauth,
    grantOf,
    isOrganization,
    requireScope,
    requireActor,
    requireReader,
    checkHeaders,
    livePost,
    postContent,
  };
};

export type LinkedInState = Awaited<ReturnType<typeof linkedInState>>;
