import { useMemo } from 'preact/hooks';
import type { Api, Schemas, TimelineEvent } from '../api.ts';
import { LineChart, type Series } from '../chart.tsx';
import { formatTime, useLoad } from '../hooks.ts';
import { Badge, ErrorNote, Loading } from '../ui.tsx';

type MetricsChannel = Schemas['GetPostsIdMetrics200']['channels'][number];

/** One channel's readings as chart series: one line per metric the network reported. */
const seriesOf = (channel: MetricsChannel): { times: number[]; series: Series[] } => {
  const readings = channel.readings.filter((r) => r.metrics && Object.keys(r.metrics).length > 0);
  const times = readings.map((r) => Math.floor(new Date(r.at).getTime() / 1000));
  const names = [...new Set(readings.flatMap((r) => Object.keys(r.metrics ?? {})))].sort();
  const series = names.map((name) => ({
    label: name,
    values: readings.map(
      (r) => (r.metrics as Record<string, number | undefined> | undefined)?.[name] ?? null,
    ),
  }));
  return { times, series };
};

const ChannelMetrics = ({ channel }: { channel: MetricsChannel }) => {
  const { times, series } = useMemo(() => seriesOf(channel), [channel]);
  return (
    <div class="card" data-metrics-channel={channel.channelId}>
      <h3>
        {channel.platform} <span class="muted">({channel.collection.replace(/_/g, ' ')})</span>
      </h3>
      {times.length === 0 ? (
        <p class="muted">
          No reading yet{channel.nextReadingAt ? `; next at ${formatTime(channel.nextReadingAt)}` : ''}.
        </p>
      ) : (
        <>
          <LineChart times={times} series={series} title={`${channel.platform} metrics over time`} />
          <p class="muted">
            {channel.counts.readings} readings
            {channel.counts.missed ? `, ${channel.counts.missed} missed` : ''}
            {channel.latest ? `; latest ${formatTime(channel.latest.at)}` : ''}
          </p>
        </>
      )}
    </div>
  );
};

const TimelineList = ({
  events,
  platformOf,
}: {
  events: TimelineEvent[];
  platformOf: (id: string) => string;
}) => (
  <ol class="timeline">
    {events.map((event, i) => (
      <li key={`${event.at}-${i}`} data-kind={event.kind}>
        <time dateTime={event.at}>{formatTime(event.at, true)}</time>
        <span class="tl-what">
          <strong>{event.kind.replace(/_/g, ' ')}</strong> · {platformOf(event.channelId)}
          {event.block !== null && ` · block ${event.block + 1}`}
          {event.attempt !== undefined && ` · attempt ${event.attempt}`}
        </span>
        <span class="tl-detail">
          {event.detail}
          {event.until && ` (until ${formatTime(event.until, true)})`}
          {event.error && ` — ${event.error.code}: ${event.error.message}`}{' '}
          {event.url && (
            <a href={event.url} rel="noopener noreferrer" target="_blank">
              open
            </a>
          )}
        </span>
      </li>
    ))}
  </ol>
);

export const PostDetailPage = ({
  api,
  workspaceId,
  postId,
}: {
  api: Api;
  workspaceId: string;
  postId: string;
}) => {
  const path = { workspaceId, id: postId };
  const post = useLoad(
    () => api.GET('/v1/account/workspaces/{workspaceId}/posts/{id}', { params: { path } }),
    [workspaceId, postId],
  );
  const metrics = useLoad(
    () => api.GET('/v1/account/workspaces/{workspaceId}/posts/{id}/metrics', { params: { path } }),
    [workspaceId, postId],
  );
  const timeline = useLoad(
    () => api.GET('/v1/account/workspaces/{workspaceId}/posts/{id}/timeline', { params: { path } }),
    [workspaceId, postId],
  );
  const platformOf = (channelId: string) =>
    post.data?.channels.find((c) => c.channelId === channelId)?.platform ?? channelId;
  const refresh = () => {
    post.reload();
    metrics.reload();
    timeline.reload();
  };
  return (
    <>
      <p>
        <a href="#/posts">← All posts</a>
      </p>
      <h1>
        Post <span class="mono">{postId}</span>
      </h1>
      <ErrorNote message={post.error} />
      {post.loading && !post.data && <Loading what="the post" />}
      {post.data && (
        <>
          <dl class="facts">
            <dt>Status</dt>
            <dd>
              <Badge status={post.data.status} />
            </dd>
            <dt>Mode</dt>
            <dd>{post.data.mode}</dd>
            <dt>Scheduled</dt>
            <dd>{formatTime(post.data.scheduledAt)}</dd>
            <dt>Published</dt>
            <dd>{formatTime(post.data.publishedAt)}</dd>
          </dl>
          <button type="button" class="secondary" onClick={refresh}>
            Refresh
          </button>
          <h2>Channels</h2>
          {post.data.channels.map((c) => (
            <section
              key={c.channelId}
              class="card"
              aria-label={`${c.platform} channel`}
              data-channel-id={c.channelId}
            >
              <h3>
                {c.platform} <Badge status={c.status} />
              </h3>
              {c.error && <p class="error">{c.error}</p>}
              {c.waiting && (
                <p>
                  Waiting ({c.waiting.reason.replace(/_/g, ' ')}): {c.waiting.message}
                  {c.waiting.until && ` until ${formatTime(c.waiting.until)}`}
                </p>
              )}
              {c.remoteUrl && (
                <p>
                  <a href={c.remoteUrl} rel="noopener noreferrer" target="_blank">
                    {c.remoteUrl}
                  </a>
                </p>
              )}
              <ol class="blocks">
                {c.blocks.map((block, i) => (
                  <li key={`${c.channelId}-${i}`}>
                    <p class="content">{block.content || <span class="muted">(media only)</span>}</p>
                    {block.mediaIds.length > 0 && <p class="muted">{block.mediaIds.length} media</p>}
                    {block.remoteUrl && (
                      <a href={block.remoteUrl} rel="noopener noreferrer" target="_blank">
                        {block.remoteUrl}
                      </a>
                    )}
                  </li>
                ))}
              </ol>
            </section>
          ))}
        </>
      )}
      <h2>Metrics</h2>
      <ErrorNote message={metrics.error} />
      {metrics.loading && !metrics.data && <Loading what="metrics" />}
      {metrics.data?.channels.map((channel) => (
        <ChannelMetrics key={channel.channelId} channel={channel} />
      ))}
      <h2>Timeline</h2>
      <p class="muted">What the engine did for each channel and block, oldest first.</p>
      <ErrorNote message={timeline.error} />
      {timeline.loading && !timeline.data && <Loading what="the timeline" />}
      {timeline.data && timeline.data.data.length === 0 && <p>Nothing has happened yet.</p>}
      {timeline.data && <TimelineList events={timeline.data.data} platformOf={platformOf} />}
    </>
  );
};
