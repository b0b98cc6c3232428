import { type MetricsInput, type MetricsReading, NetworkError } from '../../ports/network-client.ts';
import { type HttpAnswer, sendOrClassify } from '../network-http.ts';
import { classifyLinkedInFailure } from './client.ts';

export interface LinkedInConnection {
  baseUrl: string;
  timeoutMs: number;
  apiVersion: string;
  /** The organization (pages) or person (profiles) URN the post belongs to. */
  author: string;
}

const get = (connection: LinkedInConnection, input: MetricsInput, path: string): Promise<HttpAnswer> =>
  sendOrClassify(
    {
      method: 'GET',
      url: `${connection.baseUrl}${path}`,
      headers: {
        authorization: `Bearer ${input.credentials.accessToken}`,
        'linkedin-version': connection.apiVersion,
        'x-restli-protocol-version': '2.0.0',
        'user-agent': 'Herald/0.1',
      },
      timeoutMs: connection.timeoutMs,
    },
    classifyLinkedInFailure,
  );

const numberAt = (value: unknown, ...path: string[]): number | undefined => {
  let at: unknown = value;
  for (const key of path) at = (at as Record<string, unknown> | null | undefined)?.[key];
  return typeof at === 'number' ? at : undefined;
};

const put = (reading: MetricsReading, name: keyof MetricsReading, value: number | undefined) => {
  if (value !== undefined) reading[name] = value;
};

/**
 * A member's post: `GET /rest/socialActions/{urn}` (likes and comments; needs `r_member_social`).
 * A comment block (a thread's later block) reads the same way by its comment URN.
 */
const memberMetrics = async (
  connection: LinkedInConnection,
  input: MetricsInput,
): Promise<MetricsReading> => {
  const answer = await get(
    connection,
    input,
    `/rest/socialActions/${encodeURIComponent(input.block.remoteId)}`,
  );
  const reading: MetricsReading = {};
  put(reading, 'likes', numberAt(answer.body, 'likesSummary', 'totalLikes'));
  put(
    reading,
    'comments',
    numberAt(answer.body, 'commentsSummary', 'aggregatedTotalComments') ??
      numberAt(answer.body, 'commentsSummary', 'totalFirstLevelComments'),
  );
  return reading;
};

/**
 * A page's post: lifetime organic statistics from `GET /rest/organizationalEntityShareStatistics`
 * (`shares=List(urn:li:share:…)` or `ugcPosts=List(urn:li:ugcPost:…)`; needs `rw_organization_admin`;
 * LinkedIn keeps 12 months, far beyond our 30 days).
 */
const pageMetrics = async (connection: LinkedInConnection, input: MetricsInput): Promise<MetricsReading> => {
  const urn = input.block.remoteId;
  const kind = urn.startsWith('urn:li:ugcPost:') ? 'ugcPosts' : 'shares';
  const path =
    `/rest/organizationalEntityShareStatistics?q=organizationalEntity` +
    `&organizationalEntity=${encodeURIComponent(connection.author)}&${kind}=List(${encodeURIComponent(urn)})`;
  const answer = await get(connection, input, path);
  const elements = (answer.body as { elements?: unknown[] } | undefined)?.elements ?? [];
  const stats = (elements[0] as { totalShareStatistics?: unknown } | undefined)?.totalShareStatistics;
  if (!stats)
    throw new NetworkError('permanent', `LinkedIn has no statistics for ${urn}`, { status: answer.status });
  const reading: MetricsReading = {};
  put(reading, 'likes', numberAt(stats, 'likeCount'));
  put(reading, 'comments', numberAt(stats, 'commentCount'));
  put(reading, 'shares', numberAt(stats, 'shareCount'));
  put(reading, 'impressions', numberAt(stats, 'impressionCount'));
  put(reading, 'reach', numberAt(stats, 'uniqueImpressionsCount'));
  put(reading, 'clicks', numberAt(stats, 'clickCount'));
  return reading;
};

/** Metrics of a LinkedIn post: share statistics for pages; likes and comments for profiles and for comments. */
export const readLinkedInMetrics = (
  connection: LinkedInConnection,
  page: boolean,
  input: MetricsInput,
): Promise<MetricsReading> =>
  page && !input.block.remoteId.startsWith('urn:li:comment:')
    ? pageMetrics(connection, input)
    : memberMetrics(connection, input);
