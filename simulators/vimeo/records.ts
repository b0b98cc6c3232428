import type { Simulator } from '../framework/framework.ts';
import type { vimeoOAuthSimulator } from './oauth.ts';

export interface SimVimeoTrack {
  id: string;
  uri: string;
  type: 'captions' | 'subtitles' | 'chapters' | 'descriptions' | 'metadata';
  language: string;
  name: string;
  active: boolean;
  /** Bytes PUT to the track's link (null until then) and their SHA-256. */
  size: number | null;
  sha256: string | null;
  text: string | null;
}

export interface SimVimeoVideo {
  id: string;
  /** Inspection only: PATCH connections the drop switch cut. */
  droppedConnections?: number;
  uri: string;
  link: string;
  account: string;
  name: string;
  description: string;
  privacy: string;
  password: string | null;
  createdTime: string;
  modifiedTime: string;
  /** Upload-Length given at creation, and the bytes received so far. */
  size: number;
  received: number;
  sha256: string | null;
  uploadStatus: 'in_progress' | 'complete' | 'error';
  transcodeStatus: 'in_progress' | 'complete' | 'error';
  /** When transcoding ends (ms since the epoch), once the upload is complete. */
  transcodedAt: number | null;
  transcodeFails: boolean;
  tracks: SimVimeoTrack[];
  deleted: boolean;
  uploadToken: string;
}

export interface VimeoSimulatorOptions {
  port?: number;
  /** The OAuth app (its credentials and registered redirect URIs). */
  oauth?: Parameters<typeof vimeoOAuthSimulator>[0];
  holdMs?: number;
  /** How long a complete upload is transcoding (default 300 ms). */
  processingMs?: number;
}

export interface VimeoSimulator extends Simulator {
  videos(): SimVimeoVideo[];
}
