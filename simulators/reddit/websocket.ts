import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';

/**
 * The Reddit simulator's media-post socket host: its own server and port, as Reddit's is its own
 * `wss://…wss.redditmedia.com` host. A media submit names `ws://127.0.0.1:<port>/rte_images/<token>`
 * (plain `ws` on loopback: the local runtime's guarded path allows it there only). A client that
 * connects (RFC 6455, served by the `ws` library) gets one text message once the post's media is processed, then a
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

export const redditSocketHost = (
  /** What the socket of `token` says, when the post is processed (the promise settles then). */
  outcomeOf: (token: string) => Promise<SocketOutcome> | SocketOutcome,
): RedditSocketHost => {
  let server: Server | undefined;
  let url = '';
  let opened = 0;
  const sockets = new Set<Socket>();
  // The protocol (handshake, framing, closes) is the `ws` library's, as a real server's would be.
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  const upgrade = async (req: IncomingMessage, socket: Socket, head: Buffer) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    const token = /^\/rte_images\/([A-Za-z0-9_-]+)/.exec(new URL(req.url ?? '/', 'http://x').pathname)?.[1];
    const refuse = (status: number, reason: string) => {
      socket.end(`HTTP/1.1 ${status} ${reason}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n`);
    };
    if (!token) {
      refuse(400, 'Bad Request');
      return;
    }
    const pending = outcomeOf(token);
    const immediate = pending instanceof Promise ? undefined : pending;
    if (immediate === 'refuse') {
      refuse(503, 'Service Unavailable');
      return;
    }
    const client = await new Promise<WebSocket>((resolve) => wss.handleUpgrade(req, socket, head, resolve));
    opened += 1;
    const outcome = await pending;
    if (client.readyState !== WebSocket.OPEN) return;
    if (outcome === 'refuse' || outcome === 'close') {
      client.close(1000);
      return;
    }
    client.send(JSON.stringify(outcome.message), () => client.close(1000));
  };
  return {
    get url() {
      return url;
    },
    start: async () => {
      const created = createServer((_req, res) => {
        res.writeHead(426, { 'content-type': 'text/plain' }).end('Upgrade Required');
      });
      created.on('upgrade', (req, socket, head) => {
        void upgrade(req, socket as Socket, head);
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
