import { useState } from 'preact/hooks';
import { type Api, type ApiKeyView, messageOf } from '../api.ts';
import { formatTime, useLoad } from '../hooks.ts';
import { ErrorNote, Loading, Scroll } from '../ui.tsx';

const GRACE = [
  [0, 'at once'],
  [3600, 'in 1 hour'],
  [86_400, 'in 24 hours'],
] as const;

/** A secret shown once, with a copy button; gone when dismissed or when the page is left. */
const Secret = ({ secret, onDone }: { secret: ApiKeyView & { secret: string }; onDone: () => void }) => {
  const [copied, setCopied] = useState(false);
  return (
    <div class="card notice" role="status">
      <h3>Key “{secret.name}” created</h3>
      <p>Copy its secret now: it is shown only once.</p>
      <label>
        Secret
        <input class="mono" readOnly value={secret.secret} onFocus={(e) => e.currentTarget.select()} />
      </label>
      <div class="row">
        <button
          type="button"
          onClick={() =>
            navigator.clipboard.writeText(secret.secret).then(
              () => setCopied(true),
              () => setCopied(false),
            )
          }
        >
          Copy secret
        </button>
        <button type="button" class="secondary" onClick={onDone}>
          Done
        </button>
        <span aria-live="polite">{copied ? 'Copied.' : ''}</span>
      </div>
    </div>
  );
};

export const KeysPage = ({ api, workspaceId }: { api: Api; workspaceId: string }) => {
  const path = { workspaceId };
  const keys = useLoad(
    () => api.GET('/v1/account/workspaces/{workspaceId}/keys', { params: { path } }),
    [workspaceId],
  );
  const [shown, setShown] = useState<ApiKeyView & { secret: string }>();
  const [error, setError] = useState<string>();
  const [confirming, setConfirming] = useState<string>();
  const [rolling, setRolling] = useState<string>();

  const act = async (call: () => Promise<{ data?: unknown; error?: unknown; response: Response }>) => {
    setError(undefined);
    const { error: failed, response, data } = await call();
    if (!response.ok) setError(messageOf(failed));
    keys.reload();
    return response.ok ? data : undefined;
  };

  const create = async (event: Event) => {
    event.preventDefault();
    const formEl = event.currentTarget as HTMLFormElement;
    const form = new FormData(formEl);
    const name = String(form.get('name') ?? '').trim();
    const body = {
      ...(name ? { name } : {}),
      mode: form.get('mode') === 'test' ? ('test' as const) : ('live' as const),
      permission: form.get('permission') === 'read' ? ('read' as const) : ('write' as const),
    };
    const created = await act(() =>
      api.POST('/v1/account/workspaces/{workspaceId}/keys', { params: { path }, body }),
    );
    if (created) {
      setShown(created as ApiKeyView & { secret: string });
      formEl.reset();
    }
  };

  const roll = async (key: ApiKeyView, graceSeconds: number) => {
    const rolled = await act(() =>
      api.POST('/v1/account/workspaces/{workspaceId}/keys/{keyId}/roll', {
        params: { path: { workspaceId, keyId: key.id } },
        body: { graceSeconds },
      }),
    );
    setRolling(undefined);
    if (rolled) setShown(rolled as ApiKeyView & { secret: string });
  };

  return (
    <>
      <h1>API keys</h1>
      {shown && <Secret secret={shown} onDone={() => setShown(undefined)} />}
      <ErrorNote message={error} />
      <form class="card row wrap" onSubmit={create} aria-label="Create a key">
        <label>
          Name
          <input name="name" maxLength={100} placeholder="e.g. CI" />
        </label>
        <label>
          Mode
          <select name="mode">
            <option value="live">live</option>
            <option value="test">test</option>
          </select>
        </label>
        <label>
          Permission
          <select name="permission">
            <option value="write">write</option>
            <option value="read">read</option>
          </select>
        </label>
        <button type="submit">Create key</button>
      </form>
      <h2>Keys of this workspace</h2>
      <ErrorNote message={keys.error} />
      {keys.loading && !keys.data && <Loading what="keys" />}
      {keys.data && keys.data.data.length === 0 && <p>No key yet.</p>}
      {keys.data && keys.data.data.length > 0 && (
        <Scroll label="Keys">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Mode</th>
                <th scope="col">Permission</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {keys.data.data.map((key) => (
                <tr key={key.id} data-key-id={key.id}>
                  <td>{key.name}</td>
                  <td class="mono">{key.prefix}…</td>
                  <td>{key.mode}</td>
                  <td>{key.permission}</td>
                  <td>{formatTime(key.createdAt)}</td>
                  <td>
                    {formatTime(key.lastUsedAt)}
                    {key.expiresAt && <div class="muted">expires {formatTime(key.expiresAt)}</div>}
                  </td>
                  <td class="actions">
                    {confirming === key.id ? (
                      <>
                        <button
                          type="button"
                          class="danger"
                          onClick={() =>
                            void act(() =>
                              api.DELETE('/v1/account/workspaces/{workspaceId}/keys/{keyId}', {
                                params: { path: { workspaceId, keyId: key.id } },
                              }),
                            ).finally(() => setConfirming(undefined))
                          }
                        >
                          Confirm revoke
                        </button>
                        <button type="button" class="secondary" onClick={() => setConfirming(undefined)}>
                          Cancel
                        </button>
                      </>
                    ) : rolling === key.id ? (
                      <form
                        class="row"
                        onSubmit={(e) => {
                          e.preventDefault();
                          const grace = Number(new FormData(e.currentTarget as HTMLFormElement).get('grace'));
                          void roll(key, grace);
                        }}
                      >
                        <label>
                          Old secret stops working
                          <select name="grace">
                            {GRACE.map(([seconds, label]) => (
                              <option key={seconds} value={seconds}>
                                {label}
                              </option>
                            ))}
                          </select>
                        </label>
                        <button type="submit">Roll</button>
                        <button type="button" class="secondary" onClick={() => setRolling(undefined)}>
                          Cancel
                        </button>
                      </form>
                    ) : (
                      <>
                        <button type="button" class="secondary" onClick={() => setRolling(key.id)}>
                          Roll <span class="sr-only">{key.name}</span>
                        </button>
                        <button type="button" class="danger" onClick={() => setConfirming(key.id)}>
                          Revoke <span class="sr-only">{key.name}</span>
                        </button>
                      </>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </Scroll>
      )}
    </>
  );
};
