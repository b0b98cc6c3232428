/**
 * Issue 26: the simulators of the networks that publish a machine-readable description of their
 * API (Pinterest, X, Bluesky, YouTube, Vimeo) check each request against it and refuse what it
 * refuses with that network's own validation error, before anything is stored. For each: an
 * unknown or misspelled parameter, a missing required one, and a value outside the allowed ones.
 * Our real clients' requests passing is proven by the network tests (test/integration/network-*.
 * test.ts, test/e2e/*), which run against the same simulators.
 */
import { resolve } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lambdaBuildOptions } from '../../lib/bundling/options.ts';
import { startBlueskySimulator } from '../../simulators/bluesky/simulator.ts';
import type { Simulator } from '../../simulators/framework/framework.ts';
import { NETWORK_SPECS, requestSpecFor } from '../../simulators/framework/spec-validation.ts';
import { startPinterestSimulator } from '../../simulators/pinterest/simulator.ts';
import { startVimeoSimulator } from '../../simulators/vimeo/simulator.ts';
import { startXSimulator } from '../../simulators/x/simulator.ts';
import { startYouTubeSimulator } from '../../simulators/youtube/simulator.ts';

const sims: Record<string, Simulator> = {};
beforeAll(async () => {
  [sims.x, sims.pinterest, sims.bluesky, sims.youtube, sims.vimeo] = await Promise.all([
    startXSimulator(),
    startPinterestSimulator(),
    startBlueskySimulator(),
    startYouTubeSimulator(),
    startVimeoSimulator(),
  ]);
});
afterAll(async () => {
  await Promise.all(Object.values(sims).map((sim) => sim.stop()));
});

const call = async (network: string, method: string, path: string, body?: unknown) => {
  const sim = sims[network] as Simulator;
  const response = await fetch(`${sim.url}${path}`, {
    method,
    headers: {
      authorization: 'Bearer spec-test-token',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as unknown) : null };
};

/** X's invalid-request problem with one error. */
const xInvalid = (message: string, parameters: Record<string, unknown>) => ({
  status: 400,
  body: {
    errors: [{ message, parameters }],
    title: 'Invalid Request',
    detail: 'One or more parameters to your request was invalid.',
    type: 'https://api.twitter.com/2/problems/invalid-request',
  },
});

describe('X (OpenAPI, xdevplatform/xdk)', () => {
  it('refuses an unknown query parameter, naming the ones the operation has', async () => {
    const answer = await call('x', 'GET', '/2/tweets/1460323737035677698?tweet.feilds=public_metrics');
    expect(answer).toEqual(
      xInvalid(
        'The query parameter [tweet.feilds] is not one of [tweet.fields,expansions,media.fields,poll.fields,user.fields,place.fields]',
        { 'tweet.feilds': ['public_metrics'] },
      ),
    );
  });

  it('refuses a body without a required field, in the JSON-schema wording X answers with', async () => {
    const answer = await call('x', 'POST', '/2/tweets', { text: 'A reply to nothing', reply: {} });
    expect(answer).toEqual(
      xInvalid('$.reply.in_reply_to_tweet_id: is missing but it is required', { '$.reply': ['{}'] }),
    );
    expect(sims.x?.records()).toEqual([]);
  });

  it('refuses a value outside an enum, in a body and in a query', async () => {
    const body = await call('x', 'POST', '/2/tweets', { text: 'Who may reply', reply_settings: 'everyone' });
    expect(body).toEqual(
      xInvalid(
        '$.reply_settings: does not have a value in the enumeration [following, mentionedUsers, subscribers, verified]',
        { '$.reply_settings': ['"everyone"'] },
      ),
    );
    const query = await call('x', 'GET', '/2/tweets/1460323737035677698?tweet.fields=public_metrics,likes');
    expect(query.status).toBe(400);
    expect(query.body).toMatchObject({
      errors: [
        {
          parameters: { 'tweet.fields': ['likes'] },
          message: expect.stringMatching(
            /^The `tweet.fields` query parameter value \[likes\] is not one of \[/,
          ),
        },
      ],
    });
    expect(sims.x?.records()).toEqual([]);
  });

  it('refuses a body field the schema does not have (CreatePosts allows no others)', async () => {
    const answer = await call('x', 'POST', '/2/tweets', { text: 'Hi', reply_setting: 'following' });
    expect(answer).toEqual(
      xInvalid(
        '$.reply_setting: is not defined in the schema and the schema does not allow additional properties',
        { $: ['{"text":"Hi","reply_setting":"following"}'] },
      ),
    );
  });
});

describe('Pinterest (OpenAPI, pinterest/api-description)', () => {
  const pinterestInvalid = (message: string) => ({ status: 400, body: { code: 1, message } });

  it('refuses an unknown query parameter', async () => {
    const answer = await call('pinterest', 'GET', '/v5/pins?page_sise=25');
    expect(answer).toEqual(
      pinterestInvalid(
        'Invalid request: The query parameter [page_sise] is not one of [pin_filter,pin_metrics,include_protected_pins,pin_type,creative_types,ad_account_id,bookmark,page_size].',
      ),
    );
  });

  it('refuses a missing required field and a missing required query parameter', async () => {
    const media = await call('pinterest', 'POST', '/v5/media', {});
    expect(media).toEqual(pinterestInvalid('Invalid request: media_type is required.'));
    const analytics = await call(
      'pinterest',
      'GET',
      '/v5/pins/1234567890/analytics?start_date=2026-11-01&end_date=2026-11-28',
    );
    expect(analytics).toEqual(
      pinterestInvalid('Invalid request: The query parameter [metric_types] is required.'),
    );
  });

  it('refuses a media source type outside the mapping, and a missing field of the chosen source', async () => {
    const wrong = await call('pinterest', 'POST', '/v5/pins', {
      board_id: '1234',
      media_source: { source_type: 'image_link', url: 'https://example.com/a.jpg' },
    });
    expect(wrong).toEqual(
      pinterestInvalid(
        'Invalid request: media_source.source_type must be one of image_base64, image_url, video_id, multiple_image_base64, multiple_image_urls, pin_url.',
      ),
    );
    const missing = await call('pinterest', 'POST', '/v5/pins', {
      board_id: '1234',
      media_source: { source_type: 'image_url' },
    });
    expect(missing).toEqual(pinterestInvalid('Invalid request: media_source.url is required.'));
  });
});

describe('Bluesky (Lexicons, bluesky-social/atproto)', () => {
  const xrpcInvalid = (message: string) => ({ status: 400, body: { error: 'InvalidRequest', message } });

  it('reports a misspelled parameter as the required one missing (the PDS ignores undeclared ones)', async () => {
    const answer = await call(
      'bluesky',
      'GET',
      '/xrpc/com.atproto.repo.getRecord?repo=did:plc:abc&colection=app.bsky.feed.post&rkey=3kabc',
    );
    expect(answer).toEqual(xrpcInvalid('Params must have the property "collection"'));
  });

  it('refuses an input without a required property, and a record its lexicon refuses', async () => {
    const input = await call('bluesky', 'POST', '/xrpc/com.atproto.repo.createRecord', {
      collection: 'app.bsky.feed.post',
      record: { $type: 'app.bsky.feed.post', text: 'Hi', createdAt: '2026-11-29T09:00:00.000Z' },
    });
    expect(input).toEqual(xrpcInvalid('Input must have the property "repo"'));
    const record = await call('bluesky', 'POST', '/xrpc/com.atproto.repo.createRecord', {
      repo: 'did:plc:abc',
      collection: 'app.bsky.feed.post',
      record: { $type: 'app.bsky.feed.post', text: 'Hi' },
    });
    expect(record).toEqual(
      xrpcInvalid('Invalid app.bsky.feed.post record: Record must have the property "createdAt"'),
    );
    expect(sims.bluesky?.records()).toEqual([]);
  });

  it('refuses a value outside the closed set a format allows (the served lexicons declare no enum)', async () => {
    const answer = await call(
      'bluesky',
      'GET',
      '/xrpc/com.atproto.server.getServiceAuth?aud=did:web:video.bsky.app&lxm=upload-video',
    );
    expect(answer).toEqual(xrpcInvalid('Params/lxm must be a valid nsid'));
    const langs = await call('bluesky', 'POST', '/xrpc/com.atproto.repo.createRecord', {
      repo: 'did:plc:abc',
      collection: 'app.bsky.feed.post',
      record: {
        $type: 'app.bsky.feed.post',
        text: 'Hi',
        langs: ['english'],
        createdAt: '2026-11-29T09:00:00Z',
      },
    });
    expect(langs).toEqual(
      xrpcInvalid(
        'Invalid app.bsky.feed.post record: Record/langs/0 must be a well-formatted BCP 47 language tag',
      ),
    );
  });
});

describe('YouTube (discovery document)', () => {
  const googleInvalid = (message: string, reason: string, location: string) => ({
    status: 400,
    body: {
      error: {
        code: 400,
        message,
        errors: [{ message, domain: 'global', reason, location, locationType: 'parameter' }],
        status: 'INVALID_ARGUMENT',
      },
    },
  });

  it('refuses an unexpected parameter', async () => {
    const answer = await call('youtube', 'GET', '/youtube/v3/videos?part=status&ids=abc');
    expect(answer).toEqual(googleInvalid('Unexpected parameter: ids', 'unexpectedParameter', 'ids'));
  });

  it('refuses a request without the required part', async () => {
    const answer = await call('youtube', 'GET', '/youtube/v3/videos?id=abc');
    expect(answer).toEqual(googleInvalid('Required parameter: part', 'required', 'part'));
  });

  it('refuses a value outside the enum, in a query and in the upload metadata', async () => {
    const query = await call('youtube', 'GET', '/youtube/v3/videos?part=id&chart=trending');
    expect(query).toEqual(
      googleInvalid(
        "Invalid string value: 'trending'. Allowed values: [chartUnspecified, mostPopular]",
        'invalidParameter',
        'chart',
      ),
    );
    const body = await call(
      'youtube',
      'POST',
      '/upload/youtube/v3/videos?part=snippet,status&uploadType=resumable',
      {
        snippet: { title: 'A video' },
        status: { privacyStatus: 'secret' },
      },
    );
    expect(body).toMatchObject({
      status: 400,
      body: {
        error: {
          errors: [{ reason: 'invalidParameter', location: 'status.privacyStatus', locationType: 'other' }],
        },
      },
    });
  });
});

describe('Vimeo (OpenAPI, vimeo/openapi)', () => {
  const vimeoInvalid = (field: string, message: string) => ({
    status: 400,
    body: {
      error: 'The parameters passed to this API endpoint did not pass Vimeo’s validation.',
      link: null,
      developer_message: message,
      error_code: 2204,
      invalid_parameters: [{ field, error_code: 2205, error: message, developer_message: message }],
    },
  });

  it('refuses an unknown query parameter (its JSON filter `fields` is taken everywhere)', async () => {
    const answer = await call('vimeo', 'GET', '/me/videos?sorting=date');
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error_code: 2204, invalid_parameters: [{ field: 'sorting' }] });
    const fields = await call('vimeo', 'GET', '/me/videos?sort=date&direction=desc&fields=uri,name');
    expect(fields.status).toBe(200);
  });

  it('refuses a video without its upload, and an upload approach outside the enum', async () => {
    const missing = await call('vimeo', 'POST', '/me/videos', { name: 'No upload' });
    expect(missing).toEqual(vimeoInvalid('upload', 'upload is required'));
    const approach = await call('vimeo', 'POST', '/me/videos', { upload: { approach: 'ftp', size: 10 } });
    expect(approach).toEqual(
      vimeoInvalid('upload.approach', 'upload.approach must be one of post, pull, streaming, tus'),
    );
  });
});

describe('the specs', () => {
  it('are read and compiled once per process', () => {
    for (const network of Object.keys(NETWORK_SPECS) as (keyof typeof NETWORK_SPECS)[]) {
      expect(requestSpecFor(network)).toBe(requestSpecFor(network));
    }
  });

  it('describe every API route the simulators serve', () => {
    const served: [keyof typeof NETWORK_SPECS, string, string][] = [
      ['x', 'POST', '/2/tweets'],
      ['x', 'GET', '/2/tweets/1'],
      ['x', 'DELETE', '/2/tweets/1'],
      ['x', 'GET', '/2/users/me'],
      ['x', 'GET', '/2/users/1/tweets'],
      ['x', 'POST', '/2/media/upload/initialize'],
      ['x', 'POST', '/2/media/upload/1/append'],
      ['x', 'POST', '/2/media/upload/1/finalize'],
      ['x', 'GET', '/2/media/upload'],
      ['x', 'POST', '/2/media/metadata'],
      ['x', 'GET', '/2/tweets/search/recent'],
      ['pinterest', 'POST', '/v5/pins'],
      ['pinterest', 'GET', '/v5/pins'],
      ['pinterest', 'GET', '/v5/pins/1'],
      ['pinterest', 'PATCH', '/v5/pins/1'],
      ['pinterest', 'DELETE', '/v5/pins/1'],
      ['pinterest', 'GET', '/v5/pins/1/analytics'],
      ['pinterest', 'GET', '/v5/boards'],
      ['pinterest', 'GET', '/v5/boards/1/pins'],
      ['pinterest', 'POST', '/v5/media'],
      ['pinterest', 'GET', '/v5/media/1'],
      ['pinterest', 'GET', '/v5/user_account'],
      ['bluesky', 'POST', '/xrpc/com.atproto.repo.createRecord'],
      ['bluesky', 'GET', '/xrpc/com.atproto.repo.getRecord'],
      ['bluesky', 'POST', '/xrpc/com.atproto.repo.deleteRecord'],
      ['bluesky', 'POST', '/xrpc/com.atproto.repo.uploadBlob'],
      ['bluesky', 'GET', '/xrpc/com.atproto.identity.resolveHandle'],
      ['bluesky', 'GET', '/xrpc/com.atproto.server.getServiceAuth'],
      ['bluesky', 'POST', '/xrpc/com.atproto.server.createSession'],
      ['bluesky', 'GET', '/xrpc/app.bsky.feed.getPosts'],
      ['bluesky', 'GET', '/xrpc/app.bsky.feed.getPostThread'],
      ['bluesky', 'POST', '/xrpc/app.bsky.video.uploadVideo'],
      ['bluesky', 'GET', '/xrpc/app.bsky.video.getJobStatus'],
      ['youtube', 'POST', '/upload/youtube/v3/videos'],
      ['youtube', 'GET', '/youtube/v3/videos'],
      ['youtube', 'PUT', '/youtube/v3/videos'],
      ['youtube', 'DELETE', '/youtube/v3/videos'],
      ['youtube', 'POST', '/upload/youtube/v3/thumbnails/set'],
      ['youtube', 'POST', '/upload/youtube/v3/captions'],
      ['youtube', 'GET', '/youtube/v3/channels'],
      ['youtube', 'GET', '/youtube/v3/playlistItems'],
      ['youtube', 'GET', '/youtube/v3/commentThreads'],
      ['youtube', 'GET', '/youtube/v3/comments'],
      ['youtube', 'POST', '/youtube/v3/comments'],
      ['youtube', 'DELETE', '/youtube/v3/comments'],
      ['vimeo', 'POST', '/me/videos'],
      ['vimeo', 'GET', '/me/videos'],
      ['vimeo', 'GET', '/videos/1'],
      ['vimeo', 'PATCH', '/videos/1'],
      ['vimeo', 'DELETE', '/videos/1'],
      ['vimeo', 'POST', '/videos/1/texttracks'],
      ['vimeo', 'GET', '/videos/1/texttracks'],
      ['vimeo', 'PATCH', '/videos/1/texttracks/1'],
    ];
    const undescribed = served.filter(
      ([network, method, path]) => !requestSpecFor(network).operationOf(method, path),
    );
    expect(undescribed).toEqual([]);
  });

  it('stay out of what Lambda runs: the function carrying every network client bundles no simulator', async () => {
    const outdir = resolve('node_modules/.cache/herald-spec-bundle');
    const built = await build({
      ...lambdaBuildOptions(resolve('functions/workers/publish.ts'), outdir),
      write: false,
      logLevel: 'silent',
    });
    const inputs = Object.keys(built.metafile.inputs);
    expect(inputs.some((input) => input.endsWith('functions/platforms/x/client.ts'))).toBe(true);
    expect(inputs.filter((input) => /simulator|spec-validation|vendor\/specs/.test(input))).toEqual([]);
  }, 120_000);
});
