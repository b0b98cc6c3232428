/**
 * The certificate of `npm run receiver`, the local webhook receiver. Webhooks go out over HTTPS
 * only, locally as on AWS, so a receiver on this machine needs a certificate the local runtime
 * trusts: one self-signed certificate for localhost, 127.0.0.1 and ::1 per DATA_DIR, made once with
 * openssl (Node cannot issue X.509 certificates by itself) and never rewritten, because the
 * webhook sender keeps the trust it read for as long as the runtime runs.
 */
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { ENV } from '../../shared/env.ts';

export interface ReceiverTls {
  /** PEM certificate: what the runtime trusts (WEBHOOK_EXTRA_CA_CERTS) and the receiver serves. */
  certFile: string;
  /** PEM private key, readable by its owner only. */
  keyFile: string;
  /** Whether this call made them (a runtime started before then does not trust them yet). */
  created: boolean;
}

export const RECEIVER_TLS_DIR = 'receiver-tls';

const CONFIG = `[req]
distinguished_name = dn
x509_extensions = ext
prompt = no
[dn]
CN = localhost
[ext]
subjectAltName = DNS:localhost,IP:127.0.0.1,IP:::1
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = serverAuth
`;

/** Where the receiver's certificate lives in a data directory. */
export const receiverTlsFiles = (dataDir: string) => {
  const dir = join(dataDir, RECEIVER_TLS_DIR);
  return {
    dir,
    certFile: join(dir, 'cert.pem'),
    keyFile: join(dir, 'key.pem'),
    trustFile: join(dir, 'trusted.pem'),
  };
};

/**
 * The receiver's certificate in `dataDir`, made if missing. Null when openssl is not installed:
 * only the receiver needs it, so the runtime starts anyway and the receiver says what is missing.
 */
export const ensureReceiverTls = (dataDir: string): ReceiverTls | null => {
  const { dir, certFile, keyFile } = receiverTlsFiles(dataDir);
  if (existsSync(certFile) && existsSync(keyFile)) return { certFile, keyFile, created: false };
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // Made aside and moved in, so a reader never sees half a file.
  const work = mkdtempSync(join(dir, 'new-'));
  try {
    writeFileSync(join(work, 'req.cnf'), CONFIG);
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'].concat([
        '-days',
        '825',
        '-config',
        'req.cnf',
        '-keyout',
        'key.pem',
        '-out',
        'cert.pem',
      ]),
      { cwd: work, stdio: 'pipe' },
    );
    chmodSync(join(work, 'key.pem'), 0o600);
    renameSync(join(work, 'key.pem'), keyFile);
    renameSync(join(work, 'cert.pem'), certFile);
    return { certFile, keyFile, created: true };
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return null;
    throw error;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
};

let defaultedTrustFile: string | undefined;

/**
 * What the local runtime's webhook sender trusts besides the public roots: the receiver's
 * certificate plus the CAs of NODE_EXTRA_CA_CERTS (a corporate proxy's, say), which the sender's
 * own CA list would otherwise replace. Undefined when the operator named WEBHOOK_EXTRA_CA_CERTS
 * (theirs is kept) or openssl is missing.
 */
export const receiverTrustFile = (dataDir: string): string | undefined => {
  const named = process.env[ENV.webhookExtraCaCerts];
  // Unset, or set by an earlier start in this process (tests): ours to replace.
  if (named && named !== defaultedTrustFile) return undefined;
  const tls = ensureReceiverTls(dataDir);
  if (!tls) {
    if (named) delete process.env[ENV.webhookExtraCaCerts];
    defaultedTrustFile = undefined;
    return undefined;
  }
  const extra = process.env.NODE_EXTRA_CA_CERTS;
  let extraPem = '';
  try {
    extraPem = extra ? readFileSync(extra, 'utf8') : '';
  } catch {
    // Node itself only warns about an unreadable NODE_EXTRA_CA_CERTS; so do we, by ignoring it.
  }
  const { trustFile } = receiverTlsFiles(dataDir);
  writeFileSync(trustFile, `${readFileSync(tls.certFile, 'utf8').trim()}\n${extraPem}`);
  defaultedTrustFile = trustFile;
  return trustFile;
};
