import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Duplex } from 'node:stream';
import type { OutboundPolicy } from '../ports/outbound.ts';
import { guardedConnectionFor } from './guarded-http.ts';
import { TransportError } from './network-http.ts';

/**
 * A WebSocket (RFC 6455) client for a host a network's answer named (Reddit's media-post socket,
 * `json.data.websocket_url`), through the guarded path: the address is checked as an https URL
 * (`wss:` only; `ws:` only to loopback while the local runtime allows it), its addresses resolved,
 * checked by the address policy and connected to as checked (guarded-http.ts
 * `guardedConnectionFor`); no redirect is followed. It waits for the first message only, which is
 * all Herald needs, so it is small enough to keep here instead of adding a dependency: text frames
 * (fragmented or not), ping answered with pong, close answered with close; a message over 64 KiB,
 * a masked or malformed frame from the server end the connection.
 *
 * Resolves with the first text message, `closed` when the server closed (or the connection ended)
 * before sending one, or `waiting` when none came within `waitMs` (the socket is still open:
 * whatever it would say is unknown). Rejects with `TransportError` when the socket could not be
 * opened (`URL_NOT_ALLOWED` for an address the policy refuses, `REDIRECT_NOT_FOLLOWED`,
 * `WEBSOCKET_REFUSED` for an answer other than 101, or the connection's own error).
 */

export type WebSocketFirst = { kind: 'message'; text: string } | { kind: 'closed' } | { kind: 'waiting' };

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC11B65';
const MAX_MESSAGE_BYTES = 64 * 1024;

/** One client frame: always masked (RFC 6455 5.3). */
const clientFrame = (opcode: number, payload: Buffer = Buffer.alloc(0)): Buffer => {
  const mask = randomBytes(4);
  const length = payload.length;
  const head =
    length < 126
      ? Buffer.from([0x80 | opcode, 0x80 | length])
      : Buffer.from([0x80 | opcode, 0x80 | 126, length >> 8, length & 0xff]);
  const masked = Buffer.from(payload.map((byte, i) => byte ^ (mask[i % 4] as number)));
  return Buffer.concat([head, mask, masked]);
};

export const receiveFirstWebSocketMessage = (
  policy: OutboundPolicy,
  address: string,
  options: { connectTimeoutMs: number; waitMs: number; headers?: Record<string, string> },
): Promise<WebSocketFirst> =>
  new Promise((resolve, reject) => {
    let connection: ReturnType<typeof guardedConnectionFor>;
    try {
      connection = guardedConnectionFor(policy, address);
    } catch (error) {
      reject(error);
      return;
    }
    const { url } = connection;
    const key = randomBytes(16).toString('base64');
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    let socket: Duplex | undefined;
    let settled = false;
    let waitTimer: NodeJS.Timeout | undefined;
    const finish = (outcome: WebSocketFirst | TransportError) => {
      if (settled) return;
      settled = true;
      clearTimeout(connectTimer);
      clearTimeout(waitTimer);
      if (socket && !socket.destroyed) {
        // A polite close (1000), then the socket is let go.
        socket.write(clientFrame(0x8, Buffer.from([0x03, 0xe8])), () => socket?.destroy());
        setTimeout(() => socket?.destroy(), 1_000).unref();
      }
      if (outcome instanceof TransportError) reject(outcome);
      else resolve(outcome);
    };
    const req = send(url, {
      method: 'GET',
      headers: {
        ...(options.headers ?? {}),
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': key,
      },
      lookup: connection.lookup as never,
      agent: false,
      ...(connection.secureContext ? { secureContext: connection.secureContext } : {}),
    });
    const connectTimer = setTimeout(() => {
      finish(
        new TransportError(true, 'TIMEOUT', `the socket did not open within ${options.connectTimeoutMs} ms`),
      );
      req.destroy();
    }, options.connectTimeoutMs);
    req.on('error', (error: NodeJS.ErrnoException) => {
      const code = (error as { code?: string }).code ?? 'EUNKNOWN';
      finish(new TransportError(code === 'URL_NOT_ALLOWED' ? false : !!socket, code, error.message));
    });
    req.on('response', (res) => {
      res.resume();
      const status = res.statusCode ?? 0;
      const code = status >= 300 && status < 400 ? 'REDIRECT_NOT_FOLLOWED' : 'WEBSOCKET_REFUSED';
      finish(
        new TransportError(true, code, `${url.origin} answered HTTP ${status} instead of opening the socket`),
      );
    });
    req.on('upgrade', (res, upgraded, head: Buffer) => {
      socket = upgraded;
      clearTimeout(connectTimer);
      const expected = createHash('sha1').update(`${key}${GUID}`).digest('base64');
      if (res.statusCode !== 101 || res.headers['sec-websocket-accept'] !== expected) {
        finish(
          new TransportError(true, 'WEBSOCKET_REFUSED', `${url.origin} did not accept the socket handshake`),
        );
        return;
      }
      waitTimer = setTimeout(() => finish({ kind: 'waiting' }), options.waitMs);
      let buffered = head;
      const fragments: Buffer[] = [];
      let fragmentBytes = 0;
      const protocolError = (why: string) =>
        finish(
          new TransportError(
            true,
            'WEBSOCKET_PROTOCOL',
            `${url.origin} broke the WebSocket protocol: ${why}`,
          ),
        );
      const read = () => {
        for (;;) {
          if (buffered.length < 2) return;
          const b0 = buffered[0] as number;
          const b1 = buffered[1] as number;
          const fin = (b0 & 0x80) !== 0;
          const opcode = b0 & 0x0f;
          if (b1 & 0x80) return protocolError('a masked frame from the server');
          let length = b1 & 0x7f;
          let offset = 2;
          if (length === 126) {
            if (buffered.length < 4) return;
            length = buffered.readUInt16BE(2);
            offset = 4;
          } else if (length === 127) {
            if (buffered.length < 10) return;
            const big = buffered.readBigUInt64BE(2);
            if (big > BigInt(MAX_MESSAGE_BYTES)) return protocolError('a frame over 64 KiB');
            length = Number(big);
            offset = 10;
          }
          if (length > MAX_MESSAGE_BYTES) return protocolError('a frame over 64 KiB');
          if (buffered.length < offset + length) return;
          const payload = buffered.subarray(offset, offset + length);
          buffered = buffered.subarray(offset + length);
          if (opcode === 0x8) return finish({ kind: 'closed' });
          if (opcode === 0x9) {
            upgraded.write(clientFrame(0xa, Buffer.from(payload)));
            continue;
          }
          if (opcode === 0xa) continue;
          if (opcode === 0x1 || opcode === 0x2 || opcode === 0x0) {
            if (opcode !== 0x0) {
              fragments.length = 0;
              fragmentBytes = 0;
            }
            fragments.push(Buffer.from(payload));
            fragmentBytes += payload.length;
            if (fragmentBytes > MAX_MESSAGE_BYTES) return protocolError('a message over 64 KiB');
            if (fin) return finish({ kind: 'message', text: Buffer.concat(fragments).toString('utf8') });
            continue;
          }
          return protocolError(`an unknown opcode ${opcode}`);
        }
      };
      upgraded.on('data', (chunk: Buffer) => {
        buffered = Buffer.concat([buffered, chunk]);
        read();
      });
      upgraded.on('end', () => finish({ kind: 'closed' }));
      upgraded.on('close', () => finish({ kind: 'closed' }));
      upgraded.on('error', () => finish({ kind: 'closed' }));
      read();
    });
    req.end();
  });
