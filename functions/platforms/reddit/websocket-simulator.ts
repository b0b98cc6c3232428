import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * The Reddit simulator's media-post socket host: its own server and port, as Reddit's is its own
 * `wss://…wss.redditmedia.com` host. A media submit names `ws://127.0.0.1:<port>/rte_images/<token>`
 * (plain `ws` on loopback: the local runtime's guarded path allows it there only). A client that
 * connects (RFC 6455 handshake) gets one text message once the post's media is processed, then a
 * close: `{"type":"success","payload":{"redirect":"<post url>"}}` or
 * `{"type":"failed","payload":{...}}` — the messages PRAW reads
 * (https://github.com/praw-dev/praw `praw/models/reddit/subreddit/subreddit.py` `_submit_media`).
 * A client that connects after processing gets the message at once. What a token's socket does
 * is the simulator's `outcomeOf` answer: a message, `close` (closes without a message) or
 * `refuse` (answers 503 instead of opening).
 */

export type SocketOutcome = { message: Record<string, unknown> } | 'close' | 'refuse';

export interface RedditSocketHost {
  /** `ws://127.0.0.1:<port>` once started. */
  readonly url: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Connections opened so far (inspection). */
  connections(): number;
  reset(): void;
}

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC11B65';

/** A server frame: never masked. */
const serverFrame = (opcode: number, payload: Buffer): Buffer => {
  const length = payload.length;
  const head =
    length < 126
      ? Buffer.from([0x80 | opcode, length])
      : length < 65_536
        ? Buffer.from([0x80 | opcode, 126, length >> 8, length & 0xff])
        : (() => {
            const h = Buffer.alloc(10);
            h[0] = 0x80 | opcode;
            h[1] = 127;
            h.writeBigUInt64BE(BigInt(length), 2);
            return h;
          })();
  return Buffer.concat([head, payload]);
};

export const redditSocketHost = (
  /** What the socket of `token` says, when the post is processed (the promise settles then). */
  outcomeOf: (token: string) => Promise<SocketOutcome> | SocketOutcome,
): RedditSocketHost => {
  let server: Server | undefined;
  let url = '';
  let opened = 0;
  const sockets = new Set<Socket>();
  const upgrade = async (req: IncomingMessage, socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    const token = /^\/rte_images\/([A-Za-z0-9_-]+)/.exec(new URL(req.url ?? '/', 'http://x').pathname)?.[1];
    const key = req.headers['sec-websocket-key'];
    const refuse = (status: number, reason: string) => {
      socket.end(`HTTP/1.1 ${status} ${reason}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n`);
    };
    if (
      !token ||
      typeof key !== 'string' ||
      req.headers['sec-websocket-version'] !== '13' ||
      !/websocket/i.test(req.headers.upgrade ?? '')
    ) {
      refuse(400, 'Bad Request');
      return;
    }
    const pending = outcomeOf(token);
    const immediate = pending instanceof Promise ? undefined : pending;
    if (immediate === 'refuse') {
      refuse(503, 'Service Unavailable');
      return;
    }
    opened += 1;
    const accept = createHash('sha1').update(`${key}${GUID}`).digest('base64');
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-accept: ${accept}\r\n\r\n`,
    );
    // The client's frames (its close, a pong) need no answer beyond ending the socket.
    socket.on('data', (chunk: Buffer) => {
      if (((chunk[0] ?? 0) & 0x0f) === 0x8) socket.end();
    });
    const outcome = await pending;
    if (socket.destroyed) return;
    if (outcome === 'refuse' || outcome === 'close') {
      socket.end(serverFrame(0x8, Buffer.from([0x03, 0xe8])));
      return;
    }
    socket.write(serverFrame(0x1, Buffer.from(JSON.stringify(outcome.message))));
    socket.end(serverFrame(0x8, Buffer.from([0x03, 0xe8])));
  };
  return {
    get url() {
      return url;
    },
    start: async () => {
      const created = createServer((_req, res) => {
        res.writeHead(426, { 'content-type': 'text/plain' }).end('Upgrade Required');
      });
      created.on('upgrade', (req, socket) => {
        void upgrade(req, socket as Socket);
      });
      await new Promise<void>((resolve) => created.listen(0, '127.0.0.1', resolve));
      const address = created.address();
      url = `ws://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      server = created;
    },
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    },
    connections: () => opened,
    reset: () => {
      opened = 0;
    },
  };
};
