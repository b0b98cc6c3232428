import WebSocket from 'ws';
import type { OutboundPolicy } from '../ports/outbound.ts';
import { guardedConnectionFor } from './guarded-http.ts';
import { TransportError } from './network-http.ts';

/**
 * A WebSocket client for a host a network's answer named (Reddit's media-post socket,
 * `json.data.websocket_url`), through the guarded path: the address is checked as an https URL
 * (`wss:` only; `ws:` only to loopback while the local runtime allows it), its addresses resolved,
 * checked by the address policy and connected to as checked (guarded-http.ts
 * `guardedConnectionFor`, whose pinned `lookup` the `ws` library hands to the request); no
 * redirect is followed. The protocol itself (handshake, fragments, pings, closes, masking rules) is
 * the `ws` library's; a message over 64 KiB ends the connection.
 *
 * Resolves with the first message, `closed` when the server closed (or the connection ended)
 * before sending one, or `waiting` when none came within `waitMs` (the socket is still open:
 * whatever it would say is unknown). Rejects with `TransportError` when the socket could not be
 * opened (`URL_NOT_ALLOWED` for an address the policy refuses, `REDIRECT_NOT_FOLLOWED`,
 * `WEBSOCKET_REFUSED` for an answer other than 101 or a bad handshake, `WEBSOCKET_PROTOCOL` for a
 * frame the protocol forbids, or the connection's own error).
 */

export type WebSocketFirst = { kind: 'message'; text: string } | { kind: 'closed' } | { kind: 'waiting' };

const MAX_MESSAGE_BYTES = 64 * 1024;

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
    const target = new URL(url.href.replace(/^http(s?):/, 'ws$1:'));
    let opened = false;
    let settled = false;
    let waitTimer: NodeJS.Timeout | undefined;
    const socket = new WebSocket(target, {
      headers: options.headers ?? {},
      handshakeTimeout: options.connectTimeoutMs,
      followRedirects: false,
      maxPayload: MAX_MESSAGE_BYTES,
      perMessageDeflate: false,
      lookup: connection.lookup as never,
      ...(connection.secureContext ? { secureContext: connection.secureContext } : {}),
    });
    const finish = (outcome: WebSocketFirst | TransportError) => {
      if (settled) return;
      settled = true;
      clearTimeout(waitTimer);
      if (socket.readyState === WebSocket.OPEN) socket.close(1000);
      else if (socket.readyState === WebSocket.CONNECTING) socket.terminate();
      if (outcome instanceof TransportError) reject(outcome);
      else resolve(outcome);
    };
    socket.on('unexpected-response', (_req, res) => {
      res.resume();
      const status = res.statusCode ?? 0;
      const code = status >= 300 && status < 400 ? 'REDIRECT_NOT_FOLLOWED' : 'WEBSOCKET_REFUSED';
      finish(
        new TransportError(true, code, `${url.origin} answered HTTP ${status} instead of opening the socket`),
      );
    });
    socket.on('open', () => {
      opened = true;
      waitTimer = setTimeout(() => finish({ kind: 'waiting' }), options.waitMs);
    });
    socket.on('message', (data) => {
      const text = Array.isArray(data)
        ? Buffer.concat(data).toString('utf8')
        : Buffer.from(data as ArrayBuffer).toString('utf8');
      finish({ kind: 'message', text });
    });
    socket.on('close', () => finish({ kind: 'closed' }));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      const code = error.code ?? 'EUNKNOWN';
      if (code === 'URL_NOT_ALLOWED') return finish(new TransportError(false, code, error.message));
      if (!opened) {
        // Before the socket opened: the handshake was refused, timed out, or the connection failed.
        const handshake = /handshake|Sec-WebSocket-Accept|Invalid Upgrade/i.test(error.message);
        return finish(new TransportError(true, handshake ? 'WEBSOCKET_REFUSED' : code, error.message));
      }
      // After it opened: a frame the protocol forbids (a masked server frame, an oversized message).
      finish(
        new TransportError(
          true,
          'WEBSOCKET_PROTOCOL',
          `${url.origin} broke the WebSocket protocol: ${error.message}`,
        ),
      );
    });
  });
