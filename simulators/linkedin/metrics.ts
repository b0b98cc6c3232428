import { simulatedMetrics } from '../../functions/platforms/sandbox/metrics.ts';
import { headerOf, type SimContext, type SimResponse, type SimRoute } from '../framework/framework.ts';

interface SimPost {
  urn: string;
  activityUrn?: string;
  author: string;
  deleted: boolean;
  comments: Map<string, { urn: string; deleted: boolean }>;
}

const error = (status: number, code: string, message: string): SimResponse => ({
  status,
  body: { status, serviceErrorCode: 100, code, message },
});

/**
 * The simulator's metrics reads: `GET /rest/socialActions/{urn}` and
 * `GET /rest/organizationalEntityShareStatistics`. The simulator keeps no creation time, so counts
 * grow from the first read: each real second counts as a simulated hour.
 */
export const linkedInMetricsRoutes = (
  posts: ReadonlyMap<string, SimPost>,
  scopes: {
    /** Refuses the call unless the token's grant holds one of `anyOf`. */
    requireScope(ctx: SimContext, anyOf: string[], resource: string): void;
    /** Refuses reading what `author` wrote without the matching read scope. */
    requireReader(ctx: SimContext, author: string, resource: string): void;
  } = { requireScope: () => {}, requireReader: () => {} },
): SimRoute[] => {
  const firstRead = new Map<string, number>();
  const countsOf = (urn: string, platform: 'linkedin' | 'linkedin_page') => {
    const since = firstRead.get(urn) ?? Date.now();
    firstRead.set(urn, since);
    return simulatedMetrics(platform, urn, ((Date.now() - since) / 1000) * 3600 + 3600);
  };
  const versioned = (ctx: SimContext): SimResponse | null =>
    headerOf(ctx.headers, 'linkedin-version')
      ? null
      : error(
          400,
          'VERSION_MISSING',
          'A version must be present. Please specify a version by adding the LinkedIn-Version header.',
        );
  /** The live post `urn` names (a post, or the post a comment is on), or null. */
  const livePostOf = (urn: string): SimPost | null => {
    const comment = /^urn:li:comment:\((.+),(\d+)\)$/.exec(urn);
    if (comment) {
      // A comment URN names the post's activity (as LinkedIn returns it); older ones named the share.
      const post =
        posts.get(comment[1] as string) ??
        [...posts.values()].find((candidate) => candidate.activityUrn === comment[1]);
      const stored = post?.comments.get(comment[2] as string);
      return post && !post.deleted && stored && !stored.deleted ? post : null;
    }
    const post = posts.get(urn);
    return post && !post.deleted ? post : null;
  };

  const socialActions = (ctx: SimContext): SimResponse => {
    const refused = versioned(ctx);
    if (refused) return refused;
    const urn = ctx.params.urn as string;
    const post = livePostOf(urn);
    if (!post) return error(404, 'NOT_FOUND', `Not found: ${urn}`);
    // Social metadata of a member's post needs r_member_social; of a page's, r_organization_social.
    scopes.requireReader(ctx, post.author, 'socialActions.GET');
    const m = countsOf(urn, 'linkedin');
    return {
      status: 200,
      body: {
        target: urn,
        likesSummary: {
          totalLikes: m.likes ?? 0,
          aggregatedTotalLikes: m.likes ?? 0,
          likedByCurrentUser: false,
        },
        commentsSummary: {
          totalFirstLevelComments: m.comments ?? 0,
          aggregatedTotalComments: m.comments ?? 0,
        },
      },
    };
  };

  const shareStatistics = (ctx: SimContext): SimResponse => {
    const refused = versioned(ctx);
    if (refused) return refused;
    const org = ctx.query.get('organizationalEntity');
    if (ctx.query.get('q') !== 'organizationalEntity' || !org) {
      return error(400, 'ILLEGAL_ARGUMENT', 'q=organizationalEntity and organizationalEntity are required');
    }
    scopes.requireScope(
      ctx,
      ['rw_organization_admin', 'r_organization_admin'],
      'organizationalEntityShareStatistics.FINDER-organizationalEntity',
    );
    const list = ctx.query.get('shares') ?? ctx.query.get('ugcPosts');
    const urns =
      /^List\((.*)\)$/
        .exec(list ?? '')?.[1]
        ?.split(',')
        .map(decodeURIComponent) ?? [];
    const elements = urns.flatMap((urn) => {
      const post = posts.get(urn);
      // LinkedIn refuses statistics of another organization's post.
      if (post && post.author !== org) return [];
      if (!post || post.deleted) return [];
      const m = countsOf(urn, 'linkedin_page');
      return [
        {
          organizationalEntity: org,
          [urn.startsWith('urn:li:ugcPost:') ? 'ugcPost' : 'share']: urn,
          totalShareStatistics: {
            likeCount: m.likes ?? 0,
            commentCount: m.comments ?? 0,
            shareCount: m.shares ?? 0,
            impressionCount: m.impressions ?? 0,
            uniqueImpressionsCount: m.reach ?? 0,
            clickCount: m.clicks ?? 0,
            engagement: 0,
          },
        },
      ];
    });
    return { status: 200, body: { paging: { count: 10, start: 0, links: [] }, elements } };
  };

  return [
    { method: 'GET', path: '/rest/socialActions/:urn', handler: socialActions },
    { method: 'GET', path: '/rest/organizationalEntityShareStatistics', handler: shareStatistics },
  ];
};
