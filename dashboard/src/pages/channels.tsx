import { useEffect, useState } from 'preact/hooks';
import { type Api, messageOf, type Schemas } from '../api.ts';
import { formatTime, useLoad } from '../hooks.ts';
import { Badge, ErrorNote, Loading, Scroll } from '../ui.tsx';

type Platform = Schemas['PostChannelsConnectBody']['platform'];
type Target = Schemas['GetChannelsConnectStateTargets200']['data'][number];

/** The networks connected through their consent screen (Bluesky takes an app password instead). */
const OAUTH_PLATFORMS: [Platform, string][] = [
  ['x', 'X'],
  ['linkedin', 'LinkedIn (profile)'],
  ['linkedin_page', 'LinkedIn (page)'],
  ['facebook', 'Facebook (page)'],
  ['instagram', 'Instagram'],
  ['threads', 'Threads'],
  ['tiktok', 'TikTok'],
  ['youtube', 'YouTube'],
  ['vimeo', 'Vimeo'],
  ['pinterest', 'Pinterest'],
  ['reddit', 'Reddit'],
];
const PENDING_KEY = 'herald.connect';

/** The consent screen sends the user back here with `?connectCode&state` (or `?error&state`). */
export const connectReturn = ():
  | { workspaceId: string; state: string; code?: string; error?: string }
  | undefined => {
  const query = new URLSearchParams(window.location.search);
  const state = query.get('state');
  const saved = sessionStorage.getItem(PENDING_KEY);
  if (!state || !saved) return undefined;
  const pending = JSON.parse(saved) as { workspaceId: string; state: string };
  if (pending.state !== state) return undefined;
  const code = query.get('connectCode') ?? undefined;
  const error = query.get('error') ?? undefined;
  return { workspaceId: pending.workspaceId, state, ...(code ? { code } : {}), ...(error ? { error } : {}) };
};

/** Leaves the query behind once read: a reload must not complete the connection twice. */
const forgetReturn = () => {
  sessionStorage.removeItem(PENDING_KEY);
  window.history.replaceState(null, '', `${window.location.pathname}#/channels`);
  // replaceState fires no hashchange: tell the router the page is now #/channels.
  window.dispatchEvent(new HashChangeEvent('hashchange'));
};

export const ChannelsPage = ({ api, workspaceId }: { api: Api; workspaceId: string }) => {
  const path = { workspaceId };
  const channels = useLoad(
    () => api.GET('/v1/account/workspaces/{workspaceId}/channels', { params: { path } }),
    [workspaceId],
  );
  const [error, setError] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const [targets, setTargets] = useState<{ state: string; platform: string; data: Target[] }>();
  const [confirming, setConfirming] = useState<string>();

  // Back from a consent screen: complete the connection, or offer the pages/boards to add.
  useEffect(() => {
    const back = connectReturn();
    if (!back || back.workspaceId !== workspaceId) return;
    forgetReturn();
    if (back.error || !back.code) {
      setError(`The network did not connect the account: ${back.error ?? 'no code came back'}.`);
      return;
    }
    void api
      .POST('/v1/account/workspaces/{workspaceId}/channels/connect/complete', {
        params: { path },
        body: { connectCode: back.code },
      })
      .then(({ data, error: failed }) => {
        if (!data) return setError(messageOf(failed));
        if ('pending' in data) setTargets({ state: back.state, platform: data.platform, data: data.data });
        else setNotice(`Connected ${data.name} (${data.platform}).`);
        channels.reload();
      });
  }, [workspaceId]);

  const connect = async (platform: Platform) => {
    setError(undefined);
    const redirectUrl = `${window.location.origin}${window.location.pathname}`;
    const { data, error: failed } = await api.POST('/v1/account/workspaces/{workspaceId}/channels/connect', {
      params: { path },
      body: { platform, redirectUrl },
    });
    if (!data) return setError(messageOf(failed));
    sessionStorage.setItem(PENDING_KEY, JSON.stringify({ workspaceId, state: data.state }));
    window.location.assign(data.authorizeUrl);
  };

  const addTargets = async (event: Event) => {
    event.preventDefault();
    if (!targets) return;
    const targetIds = new FormData(event.currentTarget as HTMLFormElement).getAll('target').map(String);
    const { data, error: failed } = await api.POST(
      '/v1/account/workspaces/{workspaceId}/channels/connect/{state}/targets',
      { params: { path: { workspaceId, state: targets.state } }, body: { targetIds } },
    );
    if (!data) return setError(messageOf(failed));
    setTargets(undefined);
    setNotice(`Connected ${data.data.map((c) => c.name).join(', ')}.`);
    channels.reload();
  };

  const disconnect = async (id: string) => {
    const { response, error: failed } = await api.DELETE(
      '/v1/account/workspaces/{workspaceId}/channels/{id}',
      {
        params: { path: { workspaceId, id } },
      },
    );
    setConfirming(undefined);
    if (!response.ok) setError(messageOf(failed));
    channels.reload();
  };

  return (
    <>
      <h1>Channels</h1>
      <ErrorNote message={error} />
      {notice && (
        <p class="card notice" role="status">
          {notice}
        </p>
      )}
      {targets && (
        <form class="card stack" onSubmit={addTargets} aria-label="Choose what to connect">
          <h2>Choose what to connect ({targets.platform})</h2>
          <fieldset>
            <legend>Pages and boards this account manages</legend>
            {targets.data.map((t) => (
              <label key={t.id} class="check">
                <input type="checkbox" name="target" value={t.id} defaultChecked />
                {t.name} <span class="muted">({t.kind})</span>
              </label>
            ))}
          </fieldset>
          <button type="submit">Connect selected</button>
        </form>
      )}
      <form
        class="card row wrap"
        aria-label="Connect a channel"
        onSubmit={(e) => {
          e.preventDefault();
          void connect(new FormData(e.currentTarget as HTMLFormElement).get('platform') as Platform);
        }}
      >
        <label>
          Network
          <select name="platform">
            {OAUTH_PLATFORMS.map(([id, name]) => (
              <option key={id} value={id}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">Connect</button>
      </form>
      <h2>Connected channels</h2>
      <ErrorNote message={channels.error} />
      {channels.loading && !channels.data && <Loading what="channels" />}
      {channels.data && channels.data.data.length === 0 && <p>No channel yet.</p>}
      {channels.data && channels.data.data.length > 0 && (
        <Scroll label="Channels">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Network</th>
                <th scope="col">Status</th>
                <th scope="col">Metrics</th>
                <th scope="col">Connected</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {channels.data.data.map((channel) => (
                <tr key={channel.id} data-channel-id={channel.id}>
                  <td>{channel.name}</td>
                  <td>{channel.platform}</td>
                  <td>
                    <Badge status={channel.status} />
                  </td>
                  <td>{channel.metricsStatus.replace(/_/g, ' ')}</td>
                  <td>{formatTime(channel.createdAt)}</td>
                  <td class="actions">
                    {channel.status === 'needs_reconnect' &&
                      OAUTH_PLATFORMS.some(([id]) => id === channel.platform) && (
                        <button type="button" onClick={() => void connect(channel.platform as Platform)}>
                          Reconnect <span class="sr-only">{channel.name}</span>
                        </button>
                      )}
                    {confirming === channel.id ? (
                      <>
                        <button type="button" class="danger" onClick={() => void disconnect(channel.id)}>
                          Confirm disconnect
                        </button>
                        <button type="button" class="secondary" onClick={() => setConfirming(undefined)}>
                          Cancel
                        </button>
                      </>
                    ) : (
                      <button type="button" class="danger" onClick={() => setConfirming(channel.id)}>
                        Disconnect <span class="sr-only">{channel.name}</span>
                      </button>
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
