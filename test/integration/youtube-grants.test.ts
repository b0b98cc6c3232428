import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SIM_OAUTH_APPS } from '../../functions/adapters/local/sim-oauth-apps.ts';
import { visibilityWarning, YouTubeClient } from '../../functions/platforms/youtube/client.ts';
import { YOUTUBE_SCOPES, youtubeAuth } from '../../functions/platforms/youtube/oauth.ts';
import type { NetworkAuth, TokenSet } from '../../functions/ports/network-auth.ts';
import type { MediaForNetwork } from '../../functions/ports/network-client.ts';
import { pkceChallenge } from '../../simulators/framework/oauth.ts';
import { REFRESH_TOKEN_IDLE_SECONDS } from '../../simulators/youtube/oauth.ts';
import { YOUTUBE_METHOD_SCOPES } from '../../simulators/youtube/scopes.ts';
import {
  type SimYouTubeVideo,
  startYouTubeSimulator,
  type YouTubeSimulator,
} from '../../simulators/youtube/simulator.ts';
import { servedFrom, startFileServer } from '../support/file-server.ts';
import { mediaFiles } from '../support/media-files.ts';
import { blockInput, failureOf } from '../support/network.ts';

/**
 * The grant side of YouTube (issue 26) against the simulator: the scopes each data route needs
 * (Google's 403 `insufficientPermissions` otherwise), an unaudited Google project's uploads locked
 * to private (and the client's warning), and refresh tokens that die after six months unused.
 */

const REDIRECT = 'https://herald.example/v1/channels/callback';
const TIMEOUT = 5_000;
const DAY = 86_400;
const scope = (name: string) => `https://www.googleapis.com/auth/${name}`;

let sim: YouTubeSimulator;
let auth: NetworkAuth;
let files: Awaited<ReturnType<typeof startFileServer>> | undefined;
const stored = new Map<string, Buffer>();
const app = SIM_OAUTH_APPS.youtube;

/** Consent (granting only `only` when given) and the code exchange: the grant's tokens. */
const connect = async (only?: string[]): Promise<TokenSet> => {
  const verifier = randomBytes(32).toString('base64url');
  const url = new URL(
    (auth.authorizeUrl as NonNullable<NetworkAuth['authorizeUrl']>)({
      app,
      redirectUri: REDIRECT,
      state: 's',
      codeChallenge: pkceChallenge(verifier),
    }),
  );
  url.searchParams.set('sim_user', `g${randomBytes(3).toString('hex')}`);
  if (only) url.searchParams.set('sim_scopes', only.map(scope).join(' '));
  const back = await fetch(url, { redirect: 'manual' });
  const code = new URL(back.headers.get('location') as string).searchParams.get('code') as string;
  return (auth.exchangeCode as NonNullable<NetworkAuth['exchangeCode']>)({
    app,
    code,
    redirectUri: REDIRECT,
    codeVerifier: verifier,
  });
};

const videoFile = (name: string): MediaForNetwork => {
  const bytes = Buffer.concat([mediaFiles.mp4(64), randomBytes(4_000)]);
  stored.set(name, bytes);
  return {
    mediaId: `med_${name}`,
    mimeType: 'video/mp4',
    size: bytes.length,
    altText: null,
    url: `${files?.url}/${name}`,
  };
};

const client = () => new YouTubeClient({ baseUrl: sim.url, timeoutMs: TIMEOUT, pollMs: 20 });
const publishWith = (tokens: TokenSet, privacy?: string) =>
  client().publish(
    blockInput({ accessToken: tokens.accessToken, remoteAccountId: 'UC' })(
      `grants ${randomBytes(3).toString('hex')}`,
      {
        media: [videoFile(`${randomBytes(4).toString('hex')}.mp4`)],
        title: 'Grant check',
        options: privacy ? { privacy } : {},
      },
    ),
  );
const simVideo = async (id: string): Promise<SimYouTubeVideo | undefined> =>
  ((await (await fetch(`${sim.url}/_sim/youtube/videos`)).json()) as { data: SimYouTubeVideo[] }).data.find(
    (v) => v.id === id,
  );

beforeAll(async () => {
  sim = await startYouTubeSimulator({ processingMs: 50 });
  auth = youtubeAuth({ baseUrls: { youtube: sim.url }, timeoutMs: TIMEOUT });
  files = await startFileServer(servedFrom(stored));
});
afterAll(async () => {
  await sim?.stop();
  await files?.close();
});
beforeEach(() => {
  sim.setAudited(false);
});

/** Someone else's comment under the video (the simulator's comment hook). */
const someonesComment = async (videoId: string) =>
  (
    (await (
      await fetch(`${sim.url}/_sim/comments`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ parentId: videoId, text: 'Nice video' }),
      })
    ).json()) as { id: string }
  ).id;
const reply = (headers: Record<string, string>, parentId: string) =>
  fetch(`${sim.url}/youtube/v3/comments?part=snippet`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ snippet: { parentId, textOriginal: 'Thanks' } }),
  });

describe('scopes on every YouTube data route', () => {
  /** Each data call Herald makes, with a video of the grant where it needs one. */
  const calls = (token: string, videoId: string) => {
    const bearer = { authorization: `Bearer ${token}` };
    const json = { ...bearer, 'content-type': 'application/json' };
    return {
      'videos.insert': () =>
        fetch(`${sim.url}/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status`, {
          method: 'POST',
          headers: { ...json, 'x-upload-content-length': '10', 'x-upload-content-type': 'video/mp4' },
          body: JSON.stringify({ snippet: { title: 't', description: 'd' }, status: {} }),
        }),
      'videos.list': () =>
        fetch(`${sim.url}/youtube/v3/videos?part=status&id=${videoId}`, { headers: bearer }),
      'videos.update': () =>
        fetch(`${sim.url}/youtube/v3/videos?part=snippet,status`, {
          method: 'PUT',
          headers: json,
          body: JSON.stringify({ id: videoId, snippet: { title: 't', description: 'd', categoryId: '22' } }),
        }),
      'thumbnails.set': () =>
        fetch(`${sim.url}/upload/youtube/v3/thumbnails/set?videoId=${videoId}`, {
          method: 'POST',
          headers: { ...bearer, 'content-type': 'image/png' },
          body: mediaFiles.png(200),
        }),
      'captions.insert': () =>
        fetch(`${sim.url}/upload/youtube/v3/captions?uploadType=multipart&part=snippet`, {
          method: 'POST',
          headers: { ...bearer, 'content-type': 'multipart/related; boundary=b' },
          body: `--b\r\nContent-Type: application/json\r\n\r\n${JSON.stringify({ snippet: { videoId, language: 'en', name: `n${randomBytes(2).toString('hex')}` } })}\r\n--b\r\nContent-Type: text/vtt\r\n\r\nWEBVTT\n\n00:00:00.000 --> 00:00:01.000\nHi\n\r\n--b--\r\n`,
        }),
      'channels.list': () =>
        fetch(`${sim.url}/youtube/v3/channels?part=contentDetails&mine=true`, { headers: bearer }),
      'playlistItems.list': () =>
        fetch(`${sim.url}/youtube/v3/playlistItems?part=snippet&playlistId=UUx`, { headers: bearer }),
      'videos.delete': () =>
        fetch(`${sim.url}/youtube/v3/videos?id=${videoId}`, { method: 'DELETE', headers: bearer }),
      'commentThreads.list': () =>
        fetch(`${sim.url}/youtube/v3/commentThreads?part=snippet,replies&videoId=${videoId}`, {
          headers: bearer,
        }),
      'comments.list': async () =>
        fetch(`${sim.url}/youtube/v3/comments?part=snippet&parentId=${await someonesComment(videoId)}`, {
          headers: bearer,
        }),
      'comments.insert': async () => reply(json, await someonesComment(videoId)),
      'comments.delete': async () => {
        // The grant's own reply where it may make one (a comment is deleted by its author only).
        const made = await reply(json, await someonesComment(videoId));
        const id = made.ok ? ((await made.json()) as { id: string }).id : 'UgzMissing';
        return fetch(`${sim.url}/youtube/v3/comments?id=${id}`, { method: 'DELETE', headers: bearer });
      },
    } satisfies Record<keyof typeof YOUTUBE_METHOD_SCOPES, () => Promise<Response>>;
  };

  it('the consent grants exactly the scopes asked for (fewer with sim_scopes), and Herald asks for the ones it uses', async () => {
    const full = await connect();
    expect([...full.scopes].sort()).toEqual([...YOUTUBE_SCOPES].sort());
    const narrow = await connect(['youtube.readonly']);
    expect(narrow.scopes).toEqual([scope('youtube.readonly')]);
  });

  it.each(Object.keys(YOUTUBE_METHOD_SCOPES) as (keyof typeof YOUTUBE_METHOD_SCOPES)[])(
    '%s: refused in Google’s shape without one of its scopes, served with one',
    async (method) => {
      const owner = await connect();
      sim.setAudited(true);
      const videoId = (await publishWith(owner, 'unlisted')).remoteId;
      const accepted = YOUTUBE_METHOD_SCOPES[method] as readonly string[];
      // A grant of a YouTube scope the method does not take (or none of Herald's at all).
      const other = ['youtube.readonly', 'youtube.upload', 'youtube.force-ssl'].find(
        (s) => !accepted.includes(s),
      );
      const without = await connect([other ?? 'youtube.channel-memberships.creator']);
      const refused = await calls(without.accessToken, videoId)[method]();
      expect(refused.status).toBe(403);
      expect(await refused.json()).toEqual({
        error: {
          code: 403,
          message: 'Request had insufficient authentication scopes.',
          errors: [
            { message: 'Insufficient Permission', domain: 'global', reason: 'insufficientPermissions' },
          ],
          status: 'PERMISSION_DENIED',
        },
      });
      expect(refused.headers.get('www-authenticate')).toContain('error="insufficient_scope"');

      // The same grant's owner with Herald's scopes is served (same channel: the video is its own).
      const served = await calls(owner.accessToken, videoId)[method]();
      expect(served.status, await served.clone().text()).toBeLessThan(300);
    },
  );

  it('the client names the missing scope’s refusal (a permanent error with Google’s reason)', async () => {
    const readonly = await connect(['youtube.readonly']);
    const error = await failureOf(publishWith(readonly));
    expect(error.kind).toBe('permanent');
    expect(error.details.status).toBe(403);
    expect(error.message).toContain('insufficientPermissions');
  });

  it('a token the simulator did not issue is not checked (pasted tokens behave as before)', async () => {
    const res = await fetch(`${sim.url}/youtube/v3/channels?part=contentDetails&mine=true`, {
      headers: { authorization: 'Bearer pasted-token' },
    });
    expect(res.status).toBe(200);
  });
});

describe('an unaudited Google project (the default): uploads are locked to private', () => {
  it('a public upload comes back private: the block is published with the visibility warning', async () => {
    const tokens = await connect();
    const block = await publishWith(tokens, 'public');
    const video = await simVideo(block.remoteId);
    expect(video).toMatchObject({
      privacyStatus: 'private',
      requestedPrivacyStatus: 'public',
      privacyLocked: true,
    });
    expect(block.meta['warning.visibility_restricted']).toMatch(
      /private.*not passed YouTube's API audit.*apply for the audit/s,
    );
    expect(block.meta['warning.visibility_restricted']).toContain('sent as public');
  });

  it('an unlisted upload too; a private upload gets no warning (nothing changed)', async () => {
    const tokens = await connect();
    const unlisted = await publishWith(tokens, 'unlisted');
    expect(unlisted.meta['warning.visibility_restricted']).toContain('sent as unlisted');
    const asked = await publishWith(tokens, 'private');
    expect((await simVideo(asked.remoteId))?.privacyStatus).toBe('private');
    expect(Object.keys(asked.meta).filter((k) => k.startsWith('warning.'))).toEqual([]);
  });

  it('a lookup after a worker died keeps the warning (the upload state remembers what was asked)', async () => {
    const tokens = await connect();
    const credentials = { accessToken: tokens.accessToken, remoteAccountId: 'UC' };
    let saved: Record<string, unknown> | null = null;
    /** Keeps what the client saves; `dieAtVideo`: the worker dies before the video id is saved. */
    const progress = (dieAtVideo: boolean) => ({
      saved: null,
      save: async (state: Record<string, unknown>) => {
        if (dieAtVideo && state.videoId) throw new Error('the worker died');
        saved = structuredClone(state);
      },
    });
    const publish = (content: string, privacy: string, dieAtVideo: boolean) =>
      client().publish(
        blockInput(credentials)(content, {
          media: [videoFile(`${randomBytes(4).toString('hex')}.mp4`)],
          title: 'Grant check',
          options: { privacy },
          progress: progress(dieAtVideo),
        }),
      );
    const lookup = (content: string) =>
      client().lookup({ credentials, idempotencyKey: 'k', content, parent: null, since: new Date(0), saved });

    // Died after the last chunk, before saving the video: the completed session answers with it.
    const lostContent = `died ${randomBytes(3).toString('hex')}`;
    await expect(publish(lostContent, 'public', true)).rejects.toThrow('the worker died');
    const bySession = await lookup(lostContent);
    expect(bySession?.remoteId).toBeTruthy();
    expect(bySession?.meta['warning.visibility_restricted']).toContain('sent as public');

    // Published, but the record in the post was lost: the saved state names the video and its privacy.
    const recorded = await publish(`recorded ${randomBytes(3).toString('hex')}`, 'unlisted', false);
    const byState = await lookup('recorded');
    expect(byState?.remoteId).toBe(recorded.remoteId);
    expect(byState?.meta['warning.visibility_restricted']).toContain('sent as unlisted');
  });

  it('the lock holds: videos.update cannot make the video public', async () => {
    const tokens = await connect();
    const block = await publishWith(tokens, 'public');
    await client().edit({
      credentials: { accessToken: tokens.accessToken, remoteAccountId: 'UC' },
      block,
      content: 'edited',
      title: 'Grant check',
      options: { privacy: 'public' },
    });
    expect(await simVideo(block.remoteId)).toMatchObject({ privacyStatus: 'private', description: 'edited' });
  });

  it('an audited project uploads as asked, without a warning', async () => {
    sim.setAudited(true);
    const tokens = await connect();
    const block = await publishWith(tokens, 'public');
    expect(await simVideo(block.remoteId)).toMatchObject({ privacyStatus: 'public', privacyLocked: false });
    expect(Object.keys(block.meta).filter((k) => k.startsWith('warning.'))).toEqual([]);
  });

  it('the switch route: POST /_sim/youtube/project { audited }', async () => {
    const set = (body: unknown) =>
      fetch(`${sim.url}/_sim/youtube/project`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await set({ audited: 'yes' })).status).toBe(400);
    expect((await set({ audited: true })).status).toBe(204);
    const tokens = await connect();
    expect((await simVideo((await publishWith(tokens)).remoteId))?.privacyStatus).toBe('public');
  });

  it('visibilityWarning: only a video made private although sent otherwise', () => {
    expect(visibilityWarning('public', 'private')).toContain('sent as public');
    expect(visibilityWarning('public', 'public')).toBeNull();
    expect(visibilityWarning('private', 'private')).toBeNull();
    expect(visibilityWarning('unlisted', undefined)).toBeNull();
  });
});

describe('refresh tokens die after six months unused (the simulator’s clock)', () => {
  it('refused with invalid_grant after six months idle, and for good', async () => {
    const tokens = await connect();
    sim.advanceClock(REFRESH_TOKEN_IDLE_SECONDS + DAY);
    const error = await failureOf(auth.refresh({ app, tokens }));
    expect(error.kind).toBe('reconnect');
    const again = await fetch(`${sim.url}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        client_id: app.clientId,
        client_secret: app.clientSecret,
        grant_type: 'refresh_token',
        refresh_token: tokens.refreshToken as string,
      }),
    });
    expect(again.status).toBe(400);
    expect(await again.json()).toEqual({
      error: 'invalid_grant',
      error_description: 'Token has been expired or revoked.',
    });
  });

  it('a token used every five months lives on: each use restarts the six months', async () => {
    const tokens = await connect();
    const refresh = auth.refresh.bind(auth);
    for (let i = 0; i < 3; i++) {
      sim.advanceClock(150 * DAY);
      const fresh = await refresh({ app, tokens });
      expect(fresh.refreshToken).toBe(tokens.refreshToken);
    }
  });

  it('the clock route: POST /_sim/youtube/clock { advanceSeconds }', async () => {
    const move = (body: unknown) =>
      fetch(`${sim.url}/_sim/youtube/clock`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await move({ advanceSeconds: -1 })).status).toBe(400);
    const tokens = await connect();
    expect((await move({ advanceSeconds: REFRESH_TOKEN_IDLE_SECONDS + 60 })).status).toBe(204);
    const error = await failureOf(auth.refresh({ app, tokens }));
    expect(error.kind).toBe('reconnect');
  });
});
