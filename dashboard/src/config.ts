/** What `GET /dashboard/config.json` holds: where the API is and which Cognito pool signs people in. */
export interface DashboardConfig {
  /** The API's origin; '' when it is this page's own origin (both runtimes). */
  apiBase: string;
  cognito: { endpoint: string; region: string; userPoolId: string; clientId: string };
}

/** Reads the deployment's configuration, served beside the dashboard's files. */
export const loadConfig = async (): Promise<DashboardConfig> => {
  const res = await fetch(`${import.meta.env.BASE_URL}config.json`, { cache: 'no-store' });
  if (!res.ok) throw new Error(`The dashboard's configuration could not be read (HTTP ${res.status}).`);
  return (await res.json()) as DashboardConfig;
};
