/**
 * What Meta's Graph APIs (Facebook, Instagram, Threads) share in their answers: the error body
 * `{ error: { message, code, error_subcode, is_transient, error_user_msg, error_user_title } }`,
 * and the usage headers of a throttled call (`X-Business-Use-Case-Usage`, `X-App-Usage`,
 * `X-Ad-Account-Usage`: JSON whose entries may state `estimated_time_to_regain_access`, in minutes).
 */

/** A Graph error body's fields, each present only when it has the documented type. */
export interface GraphError {
  message: string | undefined;
  code: number | undefined;
  subcode: number | undefined;
  /** `is_transient: true`. */
  transient: boolean;
  /** `error_user_msg`. */
  userMessage: string | undefined;
  /** `error_user_title`. */
  title: string | undefined;
}

/** The `error` of a Graph answer's body; null when the body has none. */
export const graphErrorOf = (body: unknown): GraphError | null => {
  const error = (body as { error?: unknown } | null | undefined)?.error;
  if (error === null || typeof error !== 'object') return null;
  const { message, code, error_subcode, is_transient, error_user_msg, error_user_title } = error as Record<
    string,
    unknown
  >;
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  const num = (value: unknown) => (typeof value === 'number' ? value : undefined);
  return {
    message: text(message),
    code: num(code),
    subcode: num(error_subcode),
    transient: is_transient === true,
    userMessage: text(error_user_msg),
    title: text(error_user_title),
  };
};

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
