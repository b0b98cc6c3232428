import {
  headerOf,
  objectOf,
  type SimContext,
  type SimErrorBodies,
  SimHttpError,
  type SimResponse,
  type Simulator,
  snowflake,
  startSimulator,
} from '../framework/framework.ts';
import { type LinkedInMediaOptions, linkedInMediaSimulator } from './media.ts';
import { linkedInMetricsRoutes } from './metrics.ts';
import { linkedInAccessDenied, linkedInOAuthSimulator, simLinkedInOrganizations } from './oauth.ts';

/**
 * A local LinkedIn Posts and Comments API (versioned REST): `POST /rest/posts` (201, URN in
 * `x-restli-id`), PARTIAL_UPDATE and DELETE of posts, and comments under
 * `/rest/socialActions/{post urn}/comments`. It requires the `LinkedIn-Version` and
 * `X-Restli-Protocol-Version: 2.0.0` headers, answers with LinkedIn's error bodies
 * (`{ status, serviceErrorCode, code, message }`; the serviceErrorCode values are indicative),
 * refuses a member's duplicate post (422), and reads post commentary as "little text": escapes and
 * the hashtag template are decoded, and the text is cut at the first unescaped markup character,
 * as LinkedIn does. Records carry the text as members would see it.
 *
 * A token its OAuth half issued carries the scopes of its grant, and every data route checks them
 * as LinkedIn does, refusing with 403 `ACCESS_DENIED` "Not enough permissions to access: …":
 * writing as a member (posts, comments, uploads) needs `w_member_social`, as an organization
 * `w_organization_social`; reading a member's posts or comments needs `r_member_social` (granted to
 * approved apps only), an organization's `r_organization_social`; share statistics need
 * `rw_organization_admin`. Such a token also acts only as its own member or a page that member
 * administers. Tokens it did not issue (tests, pasted tokens) keep every right.
 *
 * A comment may carry one image (`content: [{ entity: { image: urn } }]`, Comments API): an image
 * of the comment's actor, uploaded through the Images API and `AVAILABLE`.
 */

const VISIBILITIES = ['PUBLIC', 'CONNECTIONS', 'LOGGED_IN'];

const linkedInError = (
  status: number,
  code: string,
  message: string,
  serviceErrorCode = 100,
  headers?: SimResponse['headers'],
): SimResponse => ({
  status,
  body: { status, serviceErrorCode, code, message },
  ...(headers ? { headers } : {}),
});

export const linkedInErrors: SimErrorBodies = {
  unauthorized: (reason) =>
    reason === 'missing'
      ? linkedInError(401, 'EMPTY_ACCESS_TOKEN', 'Empty oauth2_access_token', 401)
      : reason === 'expired'
        ? linkedInError(401, 'EXPIRED_ACCESS_TOKEN', 'The token used in the request has expired', 65601)
        : linkedInError(
            401,
            'REVOKED_ACCESS_TOKEN',
            'The token used in the request has been revoked by the user',
            65602,
          ),
  refused: () =>
    linkedInError(422, 'UNPROCESSABLE_ENTITY', 'ERROR :: /commentary :: content was rejected (sim:fail)'),
  unavailable: () => linkedInError(503, 'SERVICE_UNAVAILABLE', 'Service Unavailable', 0),
  // LinkedIn's limits are daily (reset at midnight UTC) and its 429 carries no Retry-After.
  // LinkedIn answers a short throttle and a spent daily limit alike: a bare 429, no Retry-After.
  rateLimited: () =>
    linkedInError(
      429,
      'TOO_MANY_REQUESTS',
      'Resource level throttle APPLICATION DAY limit for calls to this resource is reached.',
      101,
    ),
  badRequest: (message) => linkedInError(400, 'ILLEGAL_ARGUMENT', message),
  notFound: (message) => linkedInError(404, 'NOT_FOUND', message, 0),
};

/**
 * What members see of a little-text commentary: `\x` is x, `{hashtag|\#|tag}` is #tag,
 * `@[Name](urn)` is Name, and an unescaped markup character ends the text.
 */
export const fromLittleText = (raw: string): string => {
  const unescapeMarkup = (value: string) => value.replace(/\\(.)/gsu, '$1');
  let out = '';
  let i = 0;
  while (i < raw.length) {
    const rest = raw.slice(i);
    const ch = raw[i] as string;
    if (ch === '\\' && i + 1 < raw.length) {
      const next = String.fromCodePoint(raw.codePointAt(i + 1) as number);
      out += next;
      i += 1 + next.length;
      continue;
    }
    const hashtag = /^\{hashtag\|\\#\|((?:\\.|[^}\\])+)\}/su.exec(rest);
    if (hashtag) {
      out += `#${unescapeMarkup(hashtag[1] as string)}`;
      i += hashtag[0].length;
      continue;
    }
    const mention = /^@\[((?:\\.|[^\]\\])*)\]\((urn:li:[^)]+)\)/su.exec(rest);
    if (mention) {
      out += unescapeMarkup(mention[1] as string);
      i += mention[0].length;
      continue;
    }
    if ('()[]{}<>|@\\'.includes(ch)) break;
    out += ch;
    i += 1;
  }
  return out;
};

/**
 * LinkedIn's refusal of a post whose content repeats one of the author's live posts: a 422 whose
 * `errorDetails.inputErrors[]` carries `DUPLICATE_POST`, naming the existing post in the message
 * (there is no top-level `code`).
 */
export const duplicatePostError = (existingUrn: string): SimResponse => ({
  status: 422,
  body: {
    errorDetailType: 'com.linkedin.common.error.BadRequest',
    message: `ERROR :: /commentary :: Content is a duplicate of ${existingUrn}`,
    errorDetails: {
      inputErrors: [
        {
          description: `Content is a duplicate of ${existingUrn}`,
          input: { inputPath: { fieldPath: '/commentary' } },
          code: 'DUPLICATE_POST',
        },
      ],
    },
    status: 422,
  },
});

/**
 * Whether a `LinkedIn-Version` is live at `now`: monthly versions (`YYYYMM`, optionally `.NN`)
 * are served from their month for twelve months, then sunset; a later month does not exist yet.
 */
export const linkedInVersionActive = (version: string, now: Date): boolean => {
  const match = /^(\d{4})(\d{2})(\.\d{2})?$/.exec(version);
  if (!match) return false;
  const month = Number(match[2]);
  if (month < 1 || month > 12) return false;
  const age = now.getUTCFullYear() * 12 + now.getUTCMonth() - (Number(match[1]) * 12 + month - 1);
  return age >= 0 && age < 12;
};

/** A comment's media, as LinkedIn keeps it: one image entity. */
export type SimCommentContent = { entity: { image: string } }[];

interface StoredComment {
  id: string;
  urn: string;
  actor: string;
  text: string;
  createdAt: number;
  deleted: boolean;
  content: SimCommentContent | null;
}

interface StoredPost {
  urn: string;
  /** The activity behind the post: comments name it in their URN (`urn:li:comment:(urn:li:activity:…,id)`). */
  activityUrn: string;
  author: string;
  commentary: string;
  text: string;
  visibility: string;
  createdAt: number;
  deleted: boolean;
  comments: Map<string, StoredComment>;
  /** `content` as LinkedIn keeps it: one file (`media`) or several images (`multiImage`). */
  content: SimPostContent | null;
}

export type SimPostContent =
  | { media: { id: string; altText?: string; title?: string } }
  | { multiImage: { images: { id: string; altText?: string }[] } };

export interface LinkedInSimulatorOptions {
  port?: number;
  holdMs?: number;
  /** OAuth endpoints and token lifetimes (linkedin/oauth-simulator.ts). */
  oauth?: Parameters<typeof linkedInOAuthSimulator>[0];
  /** The clock that decides which `LinkedIn-Version`s are live (default: the system clock). */
  now?: () => Date;
  /** Images, Videos and Documents APIs (linkedin/media-simulator.ts). */
  media?: LinkedInMediaOptions;
}

export const startLinkedInSimulator = async (options: LinkedInSimulatorOptions = {}): Promise<Simulator> => {
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

  const createPost = (ctx: SimContext): SimResponse => {
    checkHeaders(ctx);
    const body = objectOf(ctx.body);
    if (!body) return linkedInErrors.badRequest('Request body must be a JSON object');
    const author = body.author;
    if (typeof author !== 'string' || !/^urn:li:(person|organization):[\w-]+$/.test(author)) {
      return linkedInError(
        422,
        'UNPROCESSABLE_ENTITY',
        `ERROR :: /author :: "${String(author)}" is not a valid author`,
      );
    }
    if (typeof body.commentary !== 'string') {
      return linkedInError(
        422,
        'UNPROCESSABLE_ENTITY',
        'ERROR :: /commentary :: field is required but not found',
      );
    }
    const visibility = body.visibility;
    if (typeof visibility !== 'string' || !VISIBILITIES.includes(visibility)) {
      return linkedInError(
        422,
        'UNPROCESSABLE_ENTITY',
        `ERROR :: /visibility :: "${String(visibility)}" is not an enum`,
      );
    }
    requireActor(ctx, author, 'partnerApiPostsExternal.CREATE');
    if (visibility === 'CONNECTIONS' && author.startsWith('urn:li:organization:')) {
      return linkedInError(
        422,
        'UNPROCESSABLE_ENTITY',
        'ERROR :: /visibility :: CONNECTIONS is only for member authors',
      );
    }
    const distribution = objectOf(body.distribution);
    if (distribution?.feedDistribution !== 'MAIN_FEED' && distribution?.feedDistribution !== 'NONE') {
      return linkedInError(
        422,
        'UNPROCESSABLE_ENTITY',
        'ERROR :: /distribution/feedDistribution :: field is required',
      );
    }
    if (body.lifecycleState !== 'PUBLISHED' && body.lifecycleState !== 'DRAFT') {
      return linkedInError(422, 'UNPROCESSABLE_ENTITY', 'ERROR :: /lifecycleState :: field is required');
    }
    const content = postContent(body.content, author);
    if (content && 'status' in content) return content;
    const text = fromLittleText(body.commentary);
    const outcome = ctx.screen(text, author);
    for (const other of posts.values()) {
      if (!other.deleted && other.author === author && other.text === text) {
        return duplicatePostError(other.urn);
      }
    }
    const urn = `urn:li:share:${snowflake()}`;
    posts.set(urn, {
      urn,
      activityUrn: `urn:li:activity:${snowflake()}`,
      author,
      commentary: body.commentary,
      text,
      visibility,
      createdAt: Date.now(),
      deleted: false,
      comments: new Map(),
      content,
    });
    ctx.record({ kind: 'post', id: urn, parentId: null, rootId: null, text, account: author });
    return {
      status: 201,
      headers: { 'x-restli-id': urn, 'x-linkedin-id': urn },
      lost: outcome,
    };
  };

  const updatePost = (ctx: SimContext): SimResponse => {
    checkHeaders(ctx);
    if (headerOf(ctx.headers, 'x-restli-method')?.toUpperCase() !== 'PARTIAL_UPDATE') {
      return linkedInErrors.badRequest('Send X-RestLi-Method: PARTIAL_UPDATE to update a post');
    }
    const post = livePost(ctx.params.urn as string);
    requireActor(ctx, post.author, 'partnerApiPostsExternal.PARTIAL_UPDATE');
    const commentary = objectOf(objectOf(objectOf(ctx.body)?.patch)?.$set)?.commentary;
    if (typeof commentary !== 'string') {
      return linkedInError(422, 'UNPROCESSABLE_ENTITY', 'ERROR :: /patch/$set :: only commentary can be set');
    }
    const text = fromLittleText(commentary);
    const outcome = ctx.screen(text, post.author);
    post.commentary = commentary;
    post.text = text;
    ctx.record({ kind: 'edit', id: post.urn, parentId: null, rootId: null, text, account: post.author });
    return { status: 204, lost: outcome };
  };

  const deletePost = (ctx: SimContext): SimResponse => {
    checkHeaders(ctx);
    const post = livePost(ctx.params.urn as string);
    requireActor(ctx, post.author, 'partnerApiPostsExternal.DELETE');
    post.deleted = true;
    ctx.record({
      kind: 'delete',
      id: post.urn,
      parentId: null,
      rootId: null,
      text: null,
      account: post.author,
    });
    return { status: 204 };
  };

  /**
   * A comment's `content` (Comments API): at most one entity, an image of the actor's that is
   * AVAILABLE. Null without content; LinkedIn's error answer when it is wrong.
   */
  const commentContent = (raw: unknown, actor: string): SimCommentContent | SimResponse | null => {
    if (raw === undefined) return null;
    const bad = (message: string) =>
      linkedInError(422, 'UNPROCESSABLE_ENTITY', `ERROR :: /content :: ${message}`);
    if (!Array.isArray(raw)) return bad('content must be an array of content entities');
    if (raw.length === 0) return null;
    if (raw.length > 1) return bad('a comment takes at most one content entity (one image)');
    const entity = objectOf(objectOf(raw[0])?.entity);
    if (!entity || typeof entity.image !== 'string' || Object.keys(entity).length !== 1) {
      return bad('a comment content entity must be { entity: { image: <image URN> } }');
    }
    const file = files.usable(entity.image, actor, ['image'], '/content/0/entity/image');
    if (!('urn' in file)) return file;
    return [{ entity: { image: file.urn } }];
  };

  /** A comment as LinkedIn shows it: its image, when it has one, with the image's URL. */
  const commentView = (comment: StoredComment, object: string) => ({
    id: comment.id,
    commentUrn: comment.urn,
    actor: comment.actor,
    object,
    message: { text: comment.text },
    ...(comment.content
      ? {
          content: comment.content.map((item) => ({
            ...item,
            type: 'IMAGE',
            url: `https://media.licdn.sim/${encodeURIComponent(item.entity.image)}`,
          })),
        }
      : {}),
    created: { actor: comment.actor, time: comment.createdAt },
    lastModified: { actor: comment.actor, time: comment.createdAt },
  });

  const createComment = (ctx: SimContext): SimResponse => {
    checkHeaders(ctx);
    const post = livePost(ctx.params.urn as string);
    const body = objectOf(ctx.body);
    const actor = body?.actor;
    const text = objectOf(body?.message)?.text;
    if (typeof actor !== 'string' || !/^urn:li:(person|organization):[\w-]+$/.test(actor)) {
      return linkedInError(422, 'UNPROCESSABLE_ENTITY', 'ERROR :: /actor :: field is required but not found');
    }
    requireActor(ctx, actor, 'partnerApiSocialActions.comments.CREATE');
    const content = commentContent(body?.content, actor);
    if (content && 'status' in content) return content;
    // An image comment may have no text; a comment without an image needs some.
    if (typeof text !== 'string' || (text === '' && !content)) {
      return linkedInError(
        422,
        'UNPROCESSABLE_ENTITY',
        'ERROR :: /message/text :: field is required but not found',
      );
    }
    if (body?.object !== undefined && body.object !== post.urn) {
      return linkedInErrors.badRequest(`Comment object ${String(body.object)} does not match ${post.urn}`);
    }
    const outcome = ctx.screen(text, actor);
    const id = snowflake();
    const urn = `urn:li:comment:(${post.activityUrn},${id})`;
    const comment: StoredComment = { id, urn, actor, text, createdAt: Date.now(), deleted: false, content };
    post.comments.set(id, comment);
    ctx.record({ kind: 'comment', id: urn, parentId: post.urn, rootId: post.urn, text, account: actor });
    // As LinkedIn: the header carries the bare comment id; the URN (on the activity) is in the body.
    return {
      status: 201,
      headers: { 'x-restli-id': id },
      body: commentView(comment, post.urn),
      lost: outcome,
    };
  };

  const liveComment = (ctx: SimContext) => {
    const post = livePost(ctx.params.urn as string);
    const comment = post.comments.get(ctx.params.id as string);
    if (!comment || comment.deleted) {
      throw new SimHttpError(
        linkedInErrors.notFound(`Comment ${ctx.params.id} does not exist on ${post.urn}`),
      );
    }
    requireActor(ctx, comment.actor, 'partnerApiSocialActions.comments.WRITE');
    const actor = ctx.query.get('actor');
    if (actor !== null && actor !== comment.actor) {
      throw new SimHttpError(
        linkedInError(403, 'ACCESS_DENIED', 'Not enough permissions to modify this comment', 100),
      );
    }
    return { post, comment };
  };

  const updateComment = (ctx: SimContext): SimResponse => {
    checkHeaders(ctx);
    if (headerOf(ctx.headers, 'x-restli-method')?.toUpperCase() !== 'PARTIAL_UPDATE') {
      return linkedInErrors.badRequest('Send X-RestLi-Method: PARTIAL_UPDATE to update a comment');
    }
    const { post, comment } = liveComment(ctx);
    const text = objectOf(objectOf(objectOf(objectOf(ctx.body)?.patch)?.message)?.$set)?.text;
    if (typeof text !== 'string' || text === '') {
      return linkedInError(
        422,
        'UNPROCESSABLE_ENTITY',
        'ERROR :: /patch/message/$set/text :: field is required',
      );
    }
    const outcome = ctx.screen(text, comment.actor);
    comment.text = text;
    ctx.record({
      kind: 'edit',
      id: comment.urn,
      parentId: post.urn,
      rootId: post.urn,
      text,
      account: comment.actor,
    });
    return {
      status: 200,
      body: {
        id: comment.id,
        commentUrn: comment.urn,
        actor: comment.actor,
        object: post.urn,
        message: { text },
      },
      lost: outcome,
    };
  };

  const postView = (post: StoredPost) => ({
    id: post.urn,
    author: post.author,
    commentary: post.commentary,
    visibility: post.visibility,
    lifecycleState: 'PUBLISHED',
    createdAt: post.createdAt,
    publishedAt: post.createdAt,
    lastModifiedAt: post.createdAt,
  });

  const getPost = (ctx: SimContext): SimResponse => {
    checkHeaders(ctx);
    const post = livePost(ctx.params.urn as string);
    requireReader(ctx, post.author, 'partnerApiPostsExternal.GET');
    return { status: 200, body: postView(post) };
  };

  /**
   * The author finder (`q=author`), newest first. Members' own posts need `r_member_social`, a
   * permission LinkedIn grants to few apps: the sim refuses person authors, as LinkedIn does
   * without it; organization pages can be read.
   */
  const findPosts = (ctx: SimContext): SimResponse => {
    checkHeaders(ctx);
    if (ctx.query.get('q') !== 'author')
      return linkedInErrors.badRequest('Only the author finder is supported');
    const author = ctx.query.get('author') ?? '';
    requireReader(ctx, author, 'partnerApiPostsExternal.FINDER-author');
    if (!author.startsWith('urn:li:organization:')) {
      return linkedInError(
        403,
        'ACCESS_DENIED',
        'Not enough permissions to access: partnerApiPostsExternal.FINDER-author',
        100,
      );
    }
    const count = Math.min(Math.max(Number(ctx.query.get('count') ?? 10) || 10, 1), 100);
    const elements = [...posts.values()]
      .filter((post) => !post.deleted && post.author === author)
      .sort((a, b) => b.createdAt - a.createdAt)
      .slice(0, count)
      .map(postView);
    return { status: 200, body: { elements, paging: { start: 0, count, links: [] } } };
  };

  const listComments = (ctx: SimContext): SimResponse => {
    checkHeaders(ctx);
    const post = livePost(ctx.params.urn as string);
    requireReader(ctx, post.author, 'partnerApiSocialActions.comments.FINDER');
    const elements = [...post.comments.values()]
      .filter((comment) => !comment.deleted)
      .sort((a, b) => b.createdAt - a.createdAt)
      .map((comment) => commentView(comment, post.activityUrn));
    return { status: 200, body: { elements, paging: { start: 0, count: elements.length, links: [] } } };
  };

  const deleteComment = (ctx: SimContext): SimResponse => {
    checkHeaders(ctx);
    const { post, comment } = liveComment(ctx);
    comment.deleted = true;
    ctx.record({
      kind: 'delete',
      id: comment.urn,
      parentId: post.urn,
      rootId: post.urn,
      text: null,
      account: comment.actor,
    });
    return { status: 204 };
  };

  const simulator = await startSimulator({
    name: 'LinkedIn',
    errors: linkedInErrors,
    port: options.port,
    holdMs: options.holdMs,
    onReset: () => {
      posts.clear();
      files.reset();
    },
    oauth,
    routes: [
      { method: 'POST', path: '/rest/posts', handler: createPost },
      { method: 'GET', path: '/rest/posts', handler: findPosts },
      { method: 'GET', path: '/rest/posts/:urn', handler: getPost },
      { method: 'GET', path: '/rest/socialActions/:urn/comments', handler: listComments },
      { method: 'POST', path: '/rest/posts/:urn', handler: updatePost },
      { method: 'DELETE', path: '/rest/posts/:urn', handler: deletePost },
      { method: 'POST', path: '/rest/socialActions/:urn/comments', handler: createComment },
      { method: 'POST', path: '/rest/socialActions/:urn/comments/:id', handler: updateComment },
      { method: 'DELETE', path: '/rest/socialActions/:urn/comments/:id', handler: deleteComment },
      ...linkedInMetricsRoutes(posts, { requireScope, requireReader }),
      ...files.routes(checkHeaders, (ctx, owner) => requireActor(ctx, owner, 'assets.UPLOAD')),
      {
        method: 'GET',
        path: '/_sim/linkedin/posts',
        auth: false,
        handler: () => ({
          status: 200,
          body: {
            data: [...posts.values()].map((post) => ({
              urn: post.urn,
              author: post.author,
              text: post.text,
              deleted: post.deleted,
              content: post.content,
              comments: [...post.comments.values()].map((comment) => ({
                urn: comment.urn,
                actor: comment.actor,
                text: comment.text,
                deleted: comment.deleted,
                content: comment.content,
              })),
            })),
          },
        }),
      },
    ],
  });
  const stop = simulator.stop.bind(simulator);
  return Object.assign(simulator, {
    stop: async () => {
      await files.stop();
      await stop();
    },
  });
};
