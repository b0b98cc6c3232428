/**
 * What the drill says of each post still open when its settling stops: per channel its status,
 * the waits it records (retry, rate limit and its step), `waiting` as GET /posts/{id} shows it,
 * each block's claim (state, attempt, sends, lease, lookups, latest event), and whether a publish
 * job for the post is still on the local queue (ready, delayed or in flight). A post that never
 * settles is read from this alone, without a replay.
 */
import type { PostRecord } from '../functions/domain/post.ts';
import type { BlockClaim } from '../functions/ports/publishing.ts';

/** A publish job for the post on the SQS stand-in, as its inspection shows it. */
export interface QueuedJob {
  state: 'ready' | 'delayed' | 'inflight';
  kind: string;
  round?: number;
  recovered?: boolean;
  /** When it is received (delayed) or visible again (in flight); null when ready now. */
  dueAt: number | null;
  receives: number;
}

/** One channel of GET /posts/{id}, the fields read here. */
export interface ViewedChannel {
  channelId: string;
  platform: string;
  status: string;
  waiting: { reason: string; until: string | null; message: string } | null;
}

interface FauxqsMessage {
  body?: string;
  delayUntil?: number;
  approximateReceiveCount?: number;
}

/** What the SQS stand-in's inspection (`GET /_fauxqs/queues/<name>`) answers, the fields read here. */
export interface QueueInspection {
  messages: {
    ready: FauxqsMessage[];
    delayed: FauxqsMessage[];
    inflight: { message: FauxqsMessage; visibilityDeadline: number }[];
  };
}

/** The publish jobs of an inspected queue, by post id (a sweep message names no post). */
export const jobsByPost = ({ messages }: QueueInspection): Map<string, QueuedJob[]> => {
  const byPost = new Map<string, QueuedJob[]>();
  const add = (message: FauxqsMessage, state: QueuedJob['state'], dueAt: number | null) => {
    let body: { postId?: unknown; kind?: unknown; round?: unknown; recovered?: unknown };
    try {
      body = JSON.parse(message.body ?? '');
    } catch {
      return;
    }
    if (typeof body?.postId !== 'string') return;
    const job: QueuedJob = {
      state,
      kind: String(body.kind ?? 'run'),
      ...(typeof body.round === 'number' ? { round: body.round } : {}),
      ...(body.recovered === true ? { recovered: true } : {}),
      dueAt,
      receives: message.approximateReceiveCount ?? 0,
    };
    byPost.set(body.postId, [...(byPost.get(body.postId) ?? []), job]);
  };
  for (const message of messages.ready) add(message, 'ready', null);
  for (const message of messages.delayed) add(message, 'delayed', message.delayUntil ?? null);
  for (const entry of messages.inflight) add(entry.message, 'inflight', entry.visibilityDeadline);
  return byPost;
};

/** Every publish job on the SQS stand-in at `sqsEndpoint`, by post id; throws when it cannot be read. */
export const publishJobsByPost = async (
  sqsEndpoint: string,
  queueName = 'herald-publish',
): Promise<Map<string, QueuedJob[]>> => {
  const res = await fetch(`${sqsEndpoint.replace(/\/+$/, '')}/_fauxqs/queues/${queueName}`, {
    signal: AbortSignal.timeout(10_000),
  });
  if (!res.ok) throw new Error(`queue inspection answered ${res.status}`);
  return jobsByPost((await res.json()) as QueueInspection);
};

/** `at` (ISO or epoch ms) with its distance from `now`: `02:31:05.120Z (+812 s)`. */
const when = (at: string | number | null | undefined, now: number): string => {
  if (at === null || at === undefined) return '-';
  const ms = typeof at === 'number' ? at : Date.parse(at);
  if (Number.isNaN(ms)) return String(at);
  const seconds = (ms - now) / 1000;
  return `${new Date(ms).toISOString().slice(11, 23)}Z (${seconds >= 0 ? '+' : ''}${seconds.toFixed(0)} s)`;
};

const claimLine = (claim: BlockClaim, now: number): string => {
  const last = claim.timeline?.at(-1);
  const attempt = [...(claim.timeline ?? [])].reverse().find((e) => e.kind === 'sending')?.attempt;
  const parts = [
    `claim ${claim.state}`,
    attempt !== undefined ? `attempt ${attempt}` : null,
    `firstSentAt ${when(claim.firstSentAt, now)}`,
    `lastSentAt ${when(claim.lastSentAt, now)}`,
    claim.state === 'sending' ? `lease until ${when(claim.leaseUntil, now)}` : null,
    claim.lostAt ? `lostAt ${when(claim.lostAt, now)}` : null,
    claim.checks !== undefined ? `checks ${claim.checks}` : null,
    claim.nextCheckAt ? `nextCheckAt ${when(claim.nextCheckAt, now)}` : null,
    claim.duplicate ? 'duplicate' : null,
    claim.remote ? `remote ${claim.remote.remoteId}` : null,
    last
      ? `latest event ${last.kind} at ${when(last.at, now)}${last.until ? ` until ${when(last.until, now)}` : ''}: ${last.error ? `${last.error.code} ${last.error.message}; ` : ''}${last.detail}`
      : null,
  ];
  return parts.filter(Boolean).join(', ');
};

const jobLine = (job: QueuedJob, now: number): string =>
  `${job.state} ${job.kind} job${job.round !== undefined ? ` (round ${job.round})` : ''}` +
  `${job.recovered ? ' recovered' : ''}${job.dueAt !== null ? ` due ${when(job.dueAt, now)}` : ''}, received ${job.receives}×`;

/**
 * The lines for one open post. `view`: GET /posts/{id}'s channels (null when it did not answer);
 * `stored`: the post's item; `claims`: its blocks' claims; `jobs`: its publish jobs on the queue,
 * or why they could not be read.
 */
export const describeOpenPost = ({
  postId,
  now,
  view,
  stored,
  claims,
  jobs,
}: {
  postId: string;
  now: number;
  view: ViewedChannel[] | null;
  stored: PostRecord | null;
  claims: BlockClaim[];
  jobs: QueuedJob[] | string;
}): string[] => {
  const lines = [
    `  open post ${postId}: ${stored?.status ?? 'not in the table'}, round ${stored?.round ?? 1}, ` +
      `updated ${when(stored?.updatedAt, now)}; queue: ${
        typeof jobs === 'string'
          ? `not read (${jobs})`
          : jobs.length === 0
            ? 'no publish job ready, delayed or in flight'
            : jobs.map((job) => jobLine(job, now)).join('; ')
      }`,
  ];
  for (const channel of stored?.channels ?? []) {
    const shown = view?.find((c) => c.channelId === channel.channelId);
    const waits = [
      `attempts ${channel.attempts ?? 0}`,
      channel.retryAt ? `retryAt ${when(channel.retryAt, now)}` : null,
      channel.rateLimitedUntil ? `rateLimitedUntil ${when(channel.rateLimitedUntil, now)}` : null,
      channel.rateLimitStepAt ? `rateLimitStepAt ${when(channel.rateLimitStepAt, now)}` : null,
      channel.rateLimitProbes !== undefined ? `probes ${channel.rateLimitProbes}` : null,
    ].filter(Boolean);
    const waiting = !view
      ? 'waiting: GET /posts/{id} did not answer'
      : shown?.waiting
        ? `waiting ${shown.waiting.reason} until ${when(shown.waiting.until, now)}: ${shown.waiting.message}`
        : 'waiting null';
    lines.push(
      `    ${channel.platform} ${channel.channelId}: ${channel.status}, ${waits.join(', ')}; ${waiting}`,
    );
    if (channel.status !== 'publishing') continue;
    channel.blocks.forEach((block, b) => {
      const claim = claims.find((c) => c.channelId === channel.channelId && c.block === b);
      lines.push(
        `      block ${b + 1}: ${block.remoteId ? `live (${block.remoteId})` : 'not live'}; ${
          claim ? claimLine(claim, now) : 'no claim'
        }`,
      );
    });
  }
  return lines;
};
