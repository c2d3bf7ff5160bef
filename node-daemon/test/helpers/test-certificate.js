// @ts-check
/**
 * A certificate for tests of `--tls-cert`: an ECDSA P-256 key and a self-signed
 * certificate for 127.0.0.1 and localhost, made by the openssl command in a fresh
 * temporary directory (browsers take no Ed25519 server certificate, which is what the
 * mesh's own self-signed certificate uses). `spki` is the base64 SHA-256 of its public
 * key, what Chromium's --ignore-certificate-errors-spki-list takes.
 */
import { execFileSync } from 'node:child_process';
import { X509Certificate, createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Whether the openssl command is there (tests that need it skip otherwise). */
export function opensslInstalled() {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** @returns {{certFile: string, keyFile: string, cert: Buffer, fingerprint256: string, spki: string, remove: () => void}} */
export function makeTestCertificate() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'termite-tls-'));
  const certFile = path.join(dir, 'cert.pem');
  const keyFile = path.join(dir, 'key.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', keyFile, '-out', certFile,
    '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost'], { stdio: 'ignore' });
  const cert = readFileSync(certFile);
  const x = new X509Certificate(cert);
  const spki = createHash('sha256').update(x.publicKey.export({ type: 'spki', format: 'der' })).digest('base64');
  return { certFile, keyFile, cert, fingerprint256: x.fingerprint256, spki, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
