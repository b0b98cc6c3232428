import type { Api } from '../api.ts';
import { formatTime, useLoad } from '../hooks.ts';
import { ErrorNote, Loading } from '../ui.tsx';

/** A counter; `limit` null means the plan has no limit, undefined that none applies (published posts). */
const Counter = ({
  label,
  used,
  limit,
  unit = '',
}: {
  label: string;
  used: number;
  limit?: number | null;
  unit?: string;
}) => (
  <div class="card counter">
    <h2>{label}</h2>
    <p class="big">
      {used.toLocaleString()}
      {unit}{' '}
      {limit !== undefined && (
        <span class="muted">of {limit === null ? 'unlimited' : `${limit.toLocaleString()}${unit}`}</span>
      )}
    </p>
    {typeof limit === 'number' && (
      <progress max={limit} value={Math.min(used, limit)} aria-label={`${label}: ${used} of ${limit}`} />
    )}
  </div>
);

const mb = (bytes: number) => Math.round((bytes / 1_048_576) * 10) / 10;

export const UsagePage = ({ api }: { api: Api }) => {
  const usage = useLoad(() => api.GET('/v1/account/usage'), []);
  const u = usage.data;
  return (
    <>
      <h1>Usage</h1>
      <ErrorNote message={usage.error} />
      {usage.loading && !u && <Loading what="usage" />}
      {u && (
        <>
          <p>
            Plan <strong class="plan">{u.plan}</strong>, period {formatTime(u.periodStart)} to{' '}
            {formatTime(u.periodEnd)}.
          </p>
          <div class="grid">
            <Counter label="Posts created" used={u.posts.created.used} limit={u.posts.created.limit} />
            <Counter label="Posts published" used={u.posts.published} />
            <Counter label="Channels" used={u.channels.used} limit={u.channels.limit} />
            <Counter
              label="Media storage"
              used={mb(u.storage.bytesUsed)}
              limit={u.storage.bytesLimit === null ? null : mb(u.storage.bytesLimit)}
              unit=" MB"
            />
          </div>
        </>
      )}
    </>
  );
};
