import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { receiveFirstWebSocketMessage } from '../../functions/platforms/guarded-websocket.ts';
import { TransportError } from '../../functions/platforms/network-http.ts';
import type { OutboundPolicy } from '../../functions/ports/outbound.ts';
import { systemResolver } from '../../functions/shared/address-policy.ts';

/**
 * The guarded WebSocket client (Reddit's media-post socket is a host the network names): the
 * address policy decides before anything is sent, no redirect is followed, and the first message
 * is read as RFC 6455 frames (fragments, pings, closes).
 */

const LOCAL: OutboundPolicy = { resolve: systemResolver, allowLoopback: () => true };
const STRICT: OutboundPolicy = { resolve: systemResolver, allowLoopback: () => false };
const options = { connectTimeoutMs: 2_000, waitMs: 1_000 };

/** What the test server does on an upgrade to `/<behaviour>`. */
let server: Server;
let base = '';
let connections = 0;
const open = new Set<Socket>();
const frame = (opcode: number, payload: Buffer, fin = true, masked = false) => {
  const head = Buffer.from([(fin ? 0x80 : 0) | opcode, (masked ? 0x80 : 0) | payload.length]);
  return masked ? Buffer.concat([head, Buffer.from([0, 0, 0, 0]), payload]) : Buffer.concat([head, payload]);
};

beforeAll(async () => {
  server = createServer((_req, res) => res.writeHead(426).end());
  server.on('upgrade', (req, raw) => {
    const socket = raw as Socket;
    open.add(socket);
    connections += 1;
    const behaviour = (req.url ?? '/').slice(1);
    if (behaviour === 'redirect') {
      socket.end('HTTP/1.1 302 Found\r\nlocation: http://169.254.169.254/\r\ncontent-length: 0\r\n\r\n');
      return;
    }
    const accept = createHash('sha1')
      .update(`${req.headers['sec-websocket-key']}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`)
      .digest('base64');
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-accept: ${behaviour === 'bad-accept' ? 'x' : accept}\r\n\r\n`,
    );
    socket.on('error', () => socket.destroy());
    if (behaviour === 'fragments') {
      socket.write(frame(0x9, Buffer.from('ping')));
      socket.write(frame(0x1, Buffer.from('{"type":"suc'), false));
      socket.write(frame(0x0, Buffer.from('cess"}'), true));
    } else if (behaviour === 'close') {
      socket.end(frame(0x8, Buffer.from([0x03, 0xe8])));
    } else if (behaviour === 'masked') {
      socket.write(frame(0x1, Buffer.from('hi'), true, true));
    }
    // 'silent': open, says nothing.
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  base = `ws://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(async () => {
  for (const socket of open) socket.destroy();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a refusal');
    },
    (error: unknown) => {
      expect(error).toBeInstanceOf(TransportError);
      return error as TransportError;
    },
  );

describe('guarded WebSocket client', () => {
  it('refuses before connecting: plain ws:// outside the local runtime, private and metadata addresses, hosts resolving to them', async () => {
    const before = connections;
    for (const address of [
      `${base}/fragments`,
      'ws://example.com/x',
      'wss://10.0.0.7/x',
      'wss://169.254.169.254/x',
    ]) {
      const error = await refusal(receiveFirstWebSocketMessage(STRICT, address, options));
      expect(error.code, address).toBe('URL_NOT_ALLOWED');
      expect(error.sent, address).toBe(false);
    }
    const rebinding: OutboundPolicy = {
      resolve: async () => [{ address: '192.168.1.9', family: 4 }],
      allowLoopback: () => false,
    };
    const error = await refusal(
      receiveFirstWebSocketMessage(rebinding, 'wss://ws-x.wss.redditmedia.com/x', options),
    );
    expect(error.code).toBe('URL_NOT_ALLOWED');
    // ws:// to a public address is refused even in the local runtime: loopback only.
    expect((await refusal(receiveFirstWebSocketMessage(LOCAL, 'ws://93.184.216.34/x', options))).code).toBe(
      'URL_NOT_ALLOWED',
    );
    expect(connections).toBe(before);
  });

  it('reads a fragmented first message (answering a ping), and tells a close or silence apart', async () => {
    expect(await receiveFirstWebSocketMessage(LOCAL, `${base}/fragments`, options)).toEqual({
      kind: 'message',
      text: '{"type":"success"}',
    });
    expect(await receiveFirstWebSocketMessage(LOCAL, `${base}/close`, options)).toEqual({ kind: 'closed' });
    expect(await receiveFirstWebSocketMessage(LOCAL, `${base}/silent`, { ...options, waitMs: 200 })).toEqual({
      kind: 'waiting',
    });
  });

  it('follows no redirect and refuses a bad handshake or a masked server frame', async () => {
    expect((await refusal(receiveFirstWebSocketMessage(LOCAL, `${base}/redirect`, options))).code).toBe(
      'REDIRECT_NOT_FOLLOWED',
    );
    expect((await refusal(receiveFirstWebSocketMessage(LOCAL, `${base}/bad-accept`, options))).code).toBe(
      'WEBSOCKET_REFUSED',
    );
    expect((await refusal(receiveFirstWebSocketMessage(LOCAL, `${base}/masked`, options))).code).toBe(
      'WEBSOCKET_PROTOCOL',
    );
  });
});
