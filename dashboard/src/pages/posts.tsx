import { useState } from 'preact/hooks';
import type { Api, Schemas } from '../api.ts';
import { formatTime, useLoad } from '../hooks.ts';
import { Badge, ErrorNote, Loading, Scroll } from '../ui.tsx';

type Post = Schemas['Post'];
const DAY_MS = 86_400_000;

/** Monday 00:00 (local time) of the week holding `date`. */
const weekStart = (date: Date): Date => {
  const start = new Date(date.getFullYear(), date.getMonth(), date.getDate());
  start.setDate(start.getDate() - ((start.getDay() + 6) % 7));
  return start;
};

/** The first block's text, shortened: what a person recognises a post by. */
const summaryOf = (post: Post): string => {
  const text = post.channels[0]?.blocks[0]?.content ?? post.channels[0]?.title ?? '';
  return text.length > 80 ? `${text.slice(0, 79)}…` : text || '(no text)';
};

/** Scheduled posts, one column a day; a list on a phone. */
const Week = ({ api, workspaceId }: { api: Api; workspaceId: string }) => {
  const [start, setStart] = useState(() => weekStart(new Date()));
  const end = new Date(start.getTime() + 7 * DAY_MS);
  const posts = useLoad(
    () =>
      api.GET('/v1/account/workspaces/{workspaceId}/posts', {
        params: {
          path: { workspaceId },
          query: { status: ['scheduled'], from: start.toISOString(), to: end.toISOString(), limit: 100 },
        },
      }),
    [workspaceId, start.getTime()],
  );
  const days = Array.from({ length: 7 }, (_, i) => new Date(start.getTime() + i * DAY_MS));
  const on = (day: Date) =>
    (posts.data?.data ?? [])
      .filter((p) => p.scheduledAt && new Date(p.scheduledAt).toDateString() === day.toDateString())
      .sort((a, b) => (a.scheduledAt ?? '').localeCompare(b.scheduledAt ?? ''));
  const shift = (weeks: number) => setStart(new Date(start.getTime() + weeks * 7 * DAY_MS));
  return (
    <section aria-labelledby="week-title">
      <div class="row wrap">
        <h2 id="week-title">
          Scheduled, week of {start.toLocaleDateString(undefined, { dateStyle: 'medium' })}
        </h2>
        <button type="button" class="secondary" onClick={() => shift(-1)}>
          Previous week
        </button>
        <button type="button" class="secondary" onClick={() => setStart(weekStart(new Date()))}>
          This week
        </button>
        <button type="button" class="secondary" onClick={() => shift(1)}>
          Next week
        </button>
      </div>
      <ErrorNote message={posts.error} />
      <ol class="week">
        {days.map((day) => (
          <li key={day.getTime()} class="day">
            <h3>{day.toLocaleDateString(undefined, { weekday: 'short', day: 'numeric', month: 'short' })}</h3>
            <ul>
              {on(day).map((post) => (
                <li key={post.id}>
                  <a href={`#/posts/${encodeURIComponent(post.id)}`}>
                    <time dateTime={post.scheduledAt ?? ''}>
                      {new Date(post.scheduledAt ?? '').toLocaleTimeString(undefined, { timeStyle: 'short' })}
                    </time>{' '}
                    {summaryOf(post)}
                  </a>
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ol>
    </section>
  );
};

export const PostsPage = ({ api, workspaceId }: { api: Api; workspaceId: string }) => {
  const [cursor, setCursor] = useState<string>();
  const [earlier, setEarlier] = useState<Post[]>([]);
  const page = useLoad(
    () =>
      api.GET('/v1/account/workspaces/{workspaceId}/posts', {
        params: { path: { workspaceId }, query: { limit: 25, ...(cursor ? { cursor } : {}) } },
      }),
    [workspaceId, cursor],
  );
  const posts = [...earlier, ...(page.data?.data ?? [])];
  return (
    <>
      <h1>Posts</h1>
      <Week api={api} workspaceId={workspaceId} />
      <h2>All posts</h2>
      <ErrorNote message={page.error} />
      {page.loading && posts.length === 0 && <Loading what="posts" />}
      {page.data && posts.length === 0 && <p>No post yet: create one with the API.</p>}
      {posts.length > 0 && (
        <Scroll label="Posts">
          <table>
            <thead>
              <tr>
                <th scope="col">Post</th>
                <th scope="col">Status</th>
                <th scope="col">When</th>
                <th scope="col">Channels</th>
              </tr>
            </thead>
            <tbody>
              {posts.map((post) => (
                <tr key={post.id} data-post-id={post.id}>
                  <td>
                    <a href={`#/posts/${encodeURIComponent(post.id)}`}>{summaryOf(post)}</a>
                    <div class="muted mono">{post.id}</div>
                  </td>
                  <td>
                    <Badge status={post.status} />
                  </td>
                  <td>{formatTime(post.publishedAt ?? post.scheduledAt ?? post.createdAt)}</td>
                  <td>
                    <ul class="plain">
                      {post.channels.map((c) => (
                        <li key={c.channelId}>
                          {c.platform} <Badge status={c.status} />{' '}
                          {c.remoteUrl && (
                            <a href={c.remoteUrl} rel="noopener noreferrer" target="_blank">
                              view<span class="sr-only"> on {c.platform}</span>
                            </a>
                          )}
                        </li>
                      ))}
                    </ul>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </Scroll>
      )}
      {page.data?.nextCursor && (
        <button
          type="button"
          class="secondary"
          onClick={() => {
            setEarlier(posts);
            setCursor(page.data?.nextCursor ?? undefined);
          }}
        >
          Load more posts
        </button>
      )}
    </>
  );
};
