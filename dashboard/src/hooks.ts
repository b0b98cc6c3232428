import { useCallback, useEffect, useState } from 'preact/hooks';
import { messageOf } from './api.ts';

export interface Loaded<T> {
  data: T | undefined;
  error: string | undefined;
  loading: boolean;
  reload: () => void;
}

/**
 * Loads what `load` returns whenever `deps` change: an openapi-fetch answer (`{ data, error }`),
 * kept as data or as the envelope's message.
 */
export const useLoad = <T>(
  load: () => Promise<{ data?: T; error?: unknown; response: Response }>,
  deps: unknown[],
): Loaded<T> => {
  const [state, setState] = useState<{ data?: T; error?: string; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load()
      .then(({ data, error, response }) => {
        if (!live) return;
        if (error !== undefined || !response.ok) setState({ error: messageOf(error), loading: false });
        else setState({ data, loading: false });
      })
      .catch((error: unknown) => live && setState({ error: messageOf(error), loading: false }));
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  return { data: state.data, error: state.error, loading: state.loading, reload };
};

/** The hash route: `#/posts/post_1` → ['posts', 'post_1']. */
export const useRoute = (): string[] => {
  const read = () =>
    window.location.hash
      .replace(/^#\/?/, '')
      .split('/')
      .filter(Boolean)
      .map((part) => decodeURIComponent(part));
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const onChange = () => setRoute(read());
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
};

export const formatTime = (iso: string | null | undefined, seconds = false): string =>
  iso
    ? new Date(iso).toLocaleString(undefined, {
        dateStyle: 'medium',
        timeStyle: seconds ? 'medium' : 'short',
      })
    : '—';
