import { randomUUID } from 'node:crypto';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Node's own cap on what it parses of a request head (above which it answers 431 with no body,
 * before any of our code): well above API Gateway's quota, so the gateway's refusal is ours to give.
 */
const NODE_MAX_HEADER_BYTES = 64 * 1024;

/** The loopbacks served: `localhost` may resolve to either, and another server must not answer on ::1. */
const LOOPBACKS = ['127.0.0.1', '::1'] as const;

/** Seconds a client is told to wait (`Retry-After`) while the runtime starts. */
export const STARTING_RETRY_AFTER_SECONDS = 1;

/**
 * The answer to any request made while the runtime starts: 503 `service_unavailable` in the error
 * envelope, at once (the request body is not waited for), so nothing hangs on a port that is bound
 * before its handlers are loaded.
 */
const answerStarting: RequestListener = (req, res) => {
  req.resume();
  const requestId = `req_${randomUUID()}`;
  const body = JSON.stringify({
    error: {
      code: 'service_unavailable',
      message: `Herald is starting; retry in ${STARTING_RETRY_AFTER_SECONDS} s.`,
      requestId,
    },
  });
  res.writeHead(503, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'Retry-After': String(STARTING_RETRY_AFTER_SECONDS),
    'X-Request-Id': requestId,
  });
  res.end(body);
};

/** The runtime's HTTP port, served on both loopbacks from the moment it is bound. */
export interface HttpPort {
  port: number;
  /** `http://localhost:<port>`: the runtime's own base URL. */
  url: string;
  /** Every request from now on (kept-alive connections included) goes to `listener`; until then, 503. */
  serve(listener: RequestListener): void;
  /** Stops listening and closes every connection. */
  close(): Promise<void>;
}

/** An HTTP server listening on `port` at `host`, or the error that refused it. */
const listenOn = (
  port: number,
  host: string,
  listener: RequestListener,
): Promise<{ server: Server; error?: undefined } | { server?: undefined; error: NodeJS.ErrnoException }> =>
  new Promise((done) => {
    const server = createServer({ maxHeaderSize: NODE_MAX_HEADER_BYTES }, listener);
    server.keepAliveTimeout = 30_000;
    server.once('error', (error: NodeJS.ErrnoException) => done({ error }));
    server.listen({ port, host, exclusive: true }, () => done({ server }));
  });

const closeAll = (servers: Server[]): Promise<void> =>
  Promise.all(
    servers.map(
      (server) =>
        new Promise<void>((done) => {
          server.closeAllConnections();
          server.close(() => done());
        }),
    ),
  ).then(() => undefined);

/** A loopback this machine does not have is skipped (no IPv6, say). */
const absent = (error: NodeJS.ErrnoException) =>
  error.code === 'EADDRNOTAVAIL' || error.code === 'EAFNOSUPPORT';

/**
 * Binds `port` (0: a free one, the same on both loopbacks) on 127.0.0.1 and ::1 with servers that
 * answer 503 until `serve` hands them the runtime's handlers. Bound, the port cannot be handed to
 * anything that asks the kernel for a free one while the runtime starts (DynamoDB Local, the
 * simulators, another program). 'taken' when another process listens there.
 */
export const bindHttpPort = async (port: number): Promise<HttpPort | 'taken'> => {
  let current: RequestListener = answerStarting;
  const dispatch: RequestListener = (req, res) => current(req, res);
  // With port 0 the kernel picks 127.0.0.1's; ::1 may have it taken: pick again a few times.
  for (let attempt = 0; ; attempt++) {
    const servers: Server[] = [];
    let chosen = port;
    let failure: NodeJS.ErrnoException | undefined;
    for (const host of LOOPBACKS) {
      const { server, error } = await listenOn(chosen, host, dispatch);
      if (server) {
        servers.push(server);
        chosen = (server.address() as AddressInfo).port;
        continue;
      }
      if (absent(error)) continue;
      failure = error;
      break;
    }
    if (!failure && servers.length === 0) throw new Error('Neither 127.0.0.1 nor ::1 can be listened on');
    if (!failure) {
      return {
        port: chosen,
        url: `http://localhost:${chosen}`,
        serve: (listener) => {
          current = listener;
        },
        close: () => closeAll(servers.splice(0)),
      };
    }
    await closeAll(servers);
    if (failure.code === 'EADDRINUSE') {
      if (port === 0 && attempt < 10) continue;
      return 'taken';
    }
    if (failure.code === 'EACCES') {
      throw new Error(`port ${port} needs more privileges than this user has; run with PORT=3000 npm start`);
    }
    throw failure;
  }
};
