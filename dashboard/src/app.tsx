import { useEffect, useMemo, useState } from 'preact/hooks';
import { type Api, createApi } from './api.ts';
import type { Tokens } from './cognito.ts';
import { type DashboardConfig, loadConfig } from './config.ts';
import { useLoad, useRoute } from './hooks.ts';
import { ChannelsPage, connectReturn } from './pages/channels.tsx';
import { KeysPage } from './pages/keys.tsx';
import { PostDetailPage } from './pages/post-detail.tsx';
import { PostsPage } from './pages/posts.tsx';
import { UsagePage } from './pages/usage.tsx';
import { WebhooksPage } from './pages/webhooks.tsx';
import { Session } from './session.ts';
import { SignIn } from './sign-in.tsx';
import { ErrorNote, Loading } from './ui.tsx';

const PAGES = [
  ['keys', 'API keys'],
  ['channels', 'Channels'],
  ['posts', 'Posts'],
  ['webhooks', 'Webhooks'],
  ['usage', 'Usage'],
] as const;
const WORKSPACE_KEY = 'herald.workspace';

export const App = () => {
  const [config, setConfig] = useState<DashboardConfig>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    loadConfig().then(setConfig, (e: Error) => setError(e.message));
  }, []);
  if (error) return <ErrorNote message={error} />;
  if (!config) return <Loading what="the dashboard" />;
  return <Signed config={config} />;
};

const Signed = ({ config }: { config: DashboardConfig }) => {
  const session = useMemo(() => new Session(config.cognito), [config]);
  const api = useMemo(() => createApi(config.apiBase, session), [config, session]);
  const [tokens, setTokens] = useState<Tokens | null>(session.current);
  useEffect(() => session.onChange(setTokens), [session]);
  if (!tokens) return <SignIn config={config} session={session} />;
  return <Shell api={api} session={session} />;
};

const Shell = ({ api, session }: { api: Api; session: Session }) => {
  const account = useLoad(() => api.GET('/v1/account'), []);
  const route = useRoute();
  const [workspaceId, setWorkspaceId] = useState(
    () => connectReturn()?.workspaceId ?? sessionStorage.getItem(WORKSPACE_KEY) ?? '',
  );
  const workspaces = account.data?.workspaces ?? [];
  const current = workspaces.find((w) => w.id === workspaceId) ?? workspaces[0];
  useEffect(() => {
    if (current) sessionStorage.setItem(WORKSPACE_KEY, current.id);
  }, [current]);
  const page = route[0] ?? (connectReturn() ? 'channels' : 'keys');
  const title = PAGES.find(([id]) => id === page)?.[1] ?? 'Post';
  useEffect(() => {
    document.title = `${title} · Herald dashboard`;
  }, [title]);

  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Herald</span>
        {workspaces.length > 0 && (
          <label class="inline">
            Workspace
            <select
              value={current?.id}
              onChange={(e) => setWorkspaceId((e.currentTarget as HTMLSelectElement).value)}
            >
              {workspaces.map((w) => (
                <option key={w.id} value={w.id}>
                  {w.name}
                </option>
              ))}
            </select>
          </label>
        )}
        <span class="who">{account.data?.user.email ?? session.email}</span>
        <button type="button" class="secondary" onClick={() => session.signOut()}>
          Sign out
        </button>
      </header>
      <nav aria-label="Dashboard">
        <ul>
          {PAGES.map(([id, name]) => (
            <li key={id}>
              <a href={`#/${id}`} aria-current={page === id ? 'page' : undefined}>
                {name}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        <ErrorNote message={account.error} />
        {!account.data && !account.error && <Loading what="your account" />}
        {current && (
          // Keyed by workspace: a switch starts every page afresh (no cursor or form of the last one).
          <Page key={current.id} api={api} page={page} route={route} workspaceId={current.id} />
        )}
        {account.data && !current && <p>This account has no workspace yet.</p>}
      </main>
    </>
  );
};

const Page = (props: { api: Api; page: string; route: string[]; workspaceId: string }) => {
  const { api, page, route, workspaceId } = props;
  switch (page) {
    case 'channels':
      return <ChannelsPage api={api} workspaceId={workspaceId} />;
    case 'posts':
      return route[1] ? (
        <PostDetailPage api={api} workspaceId={workspaceId} postId={route[1]} />
      ) : (
        <PostsPage api={api} workspaceId={workspaceId} />
      );
    case 'webhooks':
      return <WebhooksPage api={api} workspaceId={workspaceId} />;
    case 'usage':
      return <UsagePage api={api} />;
    default:
      return <KeysPage api={api} workspaceId={workspaceId} />;
  }
};
