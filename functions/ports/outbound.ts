import type { HostResolver } from './webhooks.ts';

/**
 * How Herald may call a host that a client chose or a network's answer named (a Bluesky PDS from
 * the `service` field or a DID document, any per-channel base URL): https only, each connection's
 * addresses resolved with `resolve`, checked by the address policy and connected to as checked.
 */
export interface OutboundPolicy {
  resolve: HostResolver;
  /** The local runtime's allowance: loopback addresses, and plain http:// to them (its simulators). */
  allowLoopback(): boolean;
  /** A PEM file of CAs to trust besides the public roots (the local runtime's test CA). */
  extraCaFile?(): string | undefined;
}
