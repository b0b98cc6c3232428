import type { ChannelRecord } from '../../ports/channels.ts';
import type { RefreshPolicy, TokenSet } from '../../ports/network-auth.ts';
import type { TokenCipher } from '../../ports/token-cipher.ts';

/** What is sealed in `tokenCiphertext` for channels connected through the API. */
interface SealedTokens extends TokenSet {
  format: 'tokenset/1';
}

/** Encrypts a token set for one channel (the channel id is the encryption context). */
export const sealTokens = (cipher: TokenCipher, sealId: string, tokens: TokenSet): Promise<string> =>
  cipher.encrypt(JSON.stringify({ format: 'tokenset/1', ...tokens } satisfies SealedTokens), {
    channelId: sealId,
  });

/**
 * Decrypts a channel's tokens. A channel pasted in by the admin CLI holds a bare access token: it
 * reads as a token set without refresh token or expiry.
 */
export const openTokens = async (
  cipher: TokenCipher,
  sealId: string,
  ciphertext: string,
): Promise<TokenSet> => {
  const plaintext = await cipher.decrypt(ciphertext, { channelId: sealId });
  if (plaintext.startsWith('{')) {
    try {
      const parsed = JSON.parse(plaintext) as Partial<SealedTokens>;
      if (parsed.format === 'tokenset/1' && typeof parsed.accessToken === 'string') {
        const { format: _format, ...tokens } = parsed as SealedTokens;
        return tokens;
      }
    } catch {
      // Not ours: a bare token that happens to start with a brace.
    }
  }
  return {
    accessToken: plaintext,
    refreshToken: null,
    expiresAt: null,
    refreshExpiresAt: null,
    scopes: [],
    issuedAt: '',
  };
};

/** When the proactive sweep should extend these tokens (networks whose long-lived tokens lapse unless extended). */
export const refreshDueAt = (policy: RefreshPolicy, tokens: TokenSet, now: Date): string | null => {
  if (policy.proactiveAfterSeconds === null) return null;
  const issued = Date.parse(tokens.issuedAt);
  const from = Number.isFinite(issued) ? issued : now.getTime();
  return new Date(from + policy.proactiveAfterSeconds * 1000).toISOString();
};

/** The plaintext token fields a channel keeps beside its sealed tokens. */
export const tokenFields = (policy: RefreshPolicy, tokens: TokenSet, now: Date) => ({
  tokenExpiresAt: tokens.expiresAt,
  tokenIssuedAt: tokens.issuedAt || now.toISOString(),
  refreshDueAt: refreshDueAt(policy, tokens, now),
});

/** True when the access token expires within `marginSeconds` of `now`. */
export const expiresWithin = (
  channel: Pick<ChannelRecord, 'tokenExpiresAt'>,
  marginSeconds: number,
  now: Date,
) => !!channel.tokenExpiresAt && Date.parse(channel.tokenExpiresAt) - now.getTime() <= marginSeconds * 1000;
