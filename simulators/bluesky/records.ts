import type { Simulator } from '../framework/framework.ts';
import type { StoredBlob } from './lexicon.ts';
import type { blueskyOAuthSimulator } from './oauth.ts';

export interface BlueskySimulatorOptions {
  port?: number;
  holdMs?: number;
  /** The PDS's blob upload limit (its `PDS_BLOB_UPLOAD_LIMIT`); default 5,000,000 bytes. */
  blobUploadLimit?: number;
  /** Session token lifetimes (bluesky/oauth-simulator.ts). */
  oauth?: { lifetimes?: Parameters<typeof blueskyOAuthSimulator>[0]['lifetimes'] };
}

export interface BlueskySimulator extends Simulator {
  /**
   * The next `count` createRecord calls store their record, then answer 500 InternalServerError
   * (a PDS failing after its commit: the write happened, the answer says it did not).
   */
  failAfterStore(count: number): void;
  /** The blobs uploaded so far. */
  blobs(): StoredBlob[];
  /** The records stored now (deleted ones are gone), as `getRecord` would answer them. */
  storedRecords(): SimStoredRecord[];
}

/** A stored record for inspection: its at-uri, CID and value (embed included). */
export interface SimStoredRecord {
  uri: string;
  cid: string;
  value: Record<string, unknown>;
}

/** Handles whose first label starts with `nobody` do not resolve (resolveHandle answers 400). */
export const isUnresolvableSimHandle = (handle: string) => /^nobody/i.test(handle);
