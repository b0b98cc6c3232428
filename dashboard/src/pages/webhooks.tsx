import { useState } from 'preact/hooks';
import { type Api, messageOf, type Schemas } from '../api.ts';
import { formatTime, useLoad } from '../hooks.ts';
import { Badge, ErrorNote, Loading, Scroll } from '../ui.tsx';

type Webhook = Schemas['Webhook'];

const Deliveries = ({ api, workspaceId, webhook }: { api: Api; workspaceId: string; webhook: Webhook }) => {
  const log = useLoad(
    () =>
      api.GET('/v1/account/workspaces/{workspaceId}/webhooks/{id}/deliveries', {
        params: { path: { workspaceId, id: webhook.id }, query: { limit: 50 } },
      }),
    [workspaceId, webhook.id],
  );
  return (
    <div class="deliveries">
      <div class="row">
        <h3>Delivery log</h3>
        <button type="button" class="secondary" onClick={log.reload}>
          Refresh <span class="sr-only">the delivery log</span>
        </button>
      </div>
      <ErrorNote message={log.error} />
      {log.loading && !log.data && <Loading what="deliveries" />}
      {log.data && log.data.data.length === 0 && <p>No delivery yet.</p>}
      {log.data && log.data.data.length > 0 && (
        <Scroll label="Delivery log">
          <table>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Event</th>
                <th scope="col">Attempt</th>
                <th scope="col">Outcome</th>
                <th scope="col">Status code</th>
                <th scope="col">Time</th>
                <th scope="col">Error</th>
              </tr>
            </thead>
            <tbody>
              {log.data.data.map((d) => (
                <tr key={`${d.deliveryId}-${d.attempt}`} data-delivery-id={d.deliveryId}>
                  <td>{formatTime(d.attemptedAt)}</td>
                  <td>{d.eventType}</td>
                  <td>{d.attempt}</td>
                  <td>
                    <Badge status={d.outcome} />
                  </td>
                  <td class="status-code">{d.responseStatus ?? '—'}</td>
                  <td>{d.durationMs} ms</td>
                  <td>
                    {d.error ?? ''}
                    {d.nextAttemptAt && <div class="muted">next try {formatTime(d.nextAttemptAt)}</div>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </Scroll>
      )}
    </div>
  );
};

const Endpoint = ({ api, workspaceId, webhook }: { api: Api; workspaceId: string; webhook: Webhook }) => {
  const [secret, setSecret] = useState<string>();
  const [error, setError] = useState<string>();
  const [open, setOpen] = useState(false);
  const reveal = async () => {
    if (secret) return setSecret(undefined);
    const { data, error: failed } = await api.GET(
      '/v1/account/workspaces/{workspaceId}/webhooks/{id}/secret',
      {
        params: { path: { workspaceId, id: webhook.id } },
      },
    );
    if (data) setSecret(data.secret);
    else setError(messageOf(failed));
  };
  return (
    <section class="card" aria-label={`Endpoint ${webhook.url}`} data-webhook-id={webhook.id}>
      <h2 class="mono wrap-anywhere">{webhook.url}</h2>
      <p>
        <Badge status={webhook.status} /> {webhook.events.join(', ')}
        {webhook.consecutiveFailures > 0 && ` · ${webhook.consecutiveFailures} failures in a row`}
        {webhook.description && ` · ${webhook.description}`}
      </p>
      <div class="row wrap">
        <button
          type="button"
          class="secondary"
          onClick={() => void reveal()}
          aria-expanded={secret !== undefined}
        >
          {secret ? 'Hide signing secret' : 'Reveal signing secret'}
        </button>
        <button type="button" class="secondary" onClick={() => setOpen(!open)} aria-expanded={open}>
          {open ? 'Hide deliveries' : 'Show deliveries'}
        </button>
      </div>
      <ErrorNote message={error} />
      {secret && (
        <label>
          Signing secret
          <input class="mono" readOnly value={secret} onFocus={(e) => e.currentTarget.select()} />
        </label>
      )}
      {open && <Deliveries api={api} workspaceId={workspaceId} webhook={webhook} />}
    </section>
  );
};

export const WebhooksPage = ({ api, workspaceId }: { api: Api; workspaceId: string }) => {
  const hooks = useLoad(
    () => api.GET('/v1/account/workspaces/{workspaceId}/webhooks', { params: { path: { workspaceId } } }),
    [workspaceId],
  );
  return (
    <>
      <h1>Webhooks</h1>
      <ErrorNote message={hooks.error} />
      {hooks.loading && !hooks.data && <Loading what="webhook endpoints" />}
      {hooks.data && hooks.data.data.length === 0 && (
        <p>No endpoint yet: add one with the API (POST /v1/webhooks).</p>
      )}
      {hooks.data?.data.map((webhook) => (
        <Endpoint key={webhook.id} api={api} workspaceId={workspaceId} webhook={webhook} />
      ))}
    </>
  );
};
