import type { Simulator } from '../framework/framework.ts';
import type { pinterestOAuthSimulator } from './oauth.ts';
import type { SimPin, SimPinterestMedia } from './records.ts';

export interface PinterestSwitches {
  /** The daily cap is spent for this many seconds from now (0: not spent). */
  dailyLimitSeconds?: number;
  /** Video processing ends `failed`. */
  processingFails?: boolean;
  /** How long an uploaded video is `processing` (default 300 ms). */
  processingMs?: number;
  /** How long a registration's upload form is valid (its S3 policy; default 3,600 s). */
  uploadLifetimeSeconds?: number;
}

export interface PinterestSimulator extends Simulator {
  setSwitches(switches: PinterestSwitches): void;
  pins(): SimPin[];
  media(): SimPinterestMedia[];
}

export interface PinterestSimulatorOptions {
  port?: number;
  holdMs?: number;
  oauth?: Parameters<typeof pinterestOAuthSimulator>[0];
  /** Initial switches (reset restores them). */
  switches?: PinterestSwitches;
  /** The largest video the upload form takes (default 200 MiB). */
  maxUploadBytes?: number;
}
