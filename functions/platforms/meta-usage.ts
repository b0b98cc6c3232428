/**
 * Meta's usage headers (Graph API: Facebook, Instagram, Threads). A throttled call's answer
 * carries `X-Business-Use-Case-Usage`, `X-App-Usage` or `X-Ad-Account-Usage`: JSON whose entries
 * may state `estimated_time_to_regain_access`, in minutes.
 */

/** The usage headers, in the order Meta documents them. */
export const META_USAGE_HEADERS = ['x-business-use-case-usage', 'x-app-usage', 'x-ad-account-usage'] as const;

/**
 * The longest `estimated_time_to_regain_access` (minutes) stated anywhere in one usage header's
 * JSON; undefined when the header is absent, unreadable or states none.
 */
export const regainMinutes = (raw: string | undefined): number | undefined => {
  if (!raw) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return undefined;
  }
  let minutes: number | undefined;
  const visit = (value: unknown) => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value !== null && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) {
        if (key === 'estimated_time_to_regain_access' && typeof inner === 'number') {
          if (inner >= 0) minutes = Math.max(minutes ?? 0, inner);
        } else visit(inner);
      }
    }
  };
  visit(parsed);
  return minutes;
};
