// @ts-check
/**
 * A self-signed X.509 certificate for the TLS transport, made here (Node has no API
 * for it): a fresh Ed25519 key and a minimal DER certificate signed by it.
 *
 * The certificate proves nothing and is not meant to: TLS needs one to run, and the
 * peer's identity is proven by admission, whose transcript includes keying material
 * exported from this TLS session (channel binding, docs/mesh.md "Encrypted links").
 * A fresh key per process also means nothing long-lived is kept for TLS.
 *
 * Invariant: the output is valid DER (definite lengths, minimal length encoding), the
 * fields in X.509's order: version 3, serial, Ed25519 algorithm, issuer = subject =
 * CN=termite-mesh, validity, the key.
 */
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';

/** DER: a tag and its contents. @param {number} tag @param {Buffer[]} parts */
function der(tag, ...parts) {
  const body = Buffer.concat(parts);
  const n = body.length;
  let len;
  if (n < 0x80) len = Buffer.from([n]);
  else {
    const bytes = [];
    for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
    len = Buffer.from([0x80 | bytes.length, ...bytes]);
  }
  return Buffer.concat([Buffer.from([tag]), len, body]);
}

const seq = (/** @type {Buffer[]} */ ...p) => der(0x30, ...p);
/** The OID of Ed25519 (1.3.101.112), as an AlgorithmIdentifier. */
const ED25519_ALGORITHM = seq(Buffer.from([0x06, 0x03, 0x2b, 0x65, 0x70]));

/** @param {string} cn */
function name(cn) {
  const commonName = Buffer.from([0x06, 0x03, 0x55, 0x04, 0x03]); // 2.5.4.3
  return seq(der(0x31, seq(commonName, der(0x0c, Buffer.from(cn, 'utf8')))));
}

/** GeneralizedTime (valid for any year). @param {Date} d */
function time(d) {
  const s = d.toISOString().replace(/[-:T]/g, '').slice(0, 14) + 'Z';
  return der(0x18, Buffer.from(s, 'ascii'));
}

/**
 * A fresh key and a certificate for it, valid from a day ago for ten years.
 * @returns {{key: string, cert: string}} both PEM
 */
export function selfSignedCertificate() {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const serial = randomBytes(16);
  serial[0] &= 0x7f; // a positive INTEGER
  serial[0] |= 0x01; // and minimal (no leading zero byte)
  const now = Date.now();
  const tbs = seq(
    der(0xa0, der(0x02, Buffer.from([2]))), // [0] version v3
    der(0x02, serial),
    ED25519_ALGORITHM,
    name('termite-mesh'),
    seq(time(new Date(now - 86_400_000)), time(new Date(now + 10 * 365 * 86_400_000))),
    name('termite-mesh'),
    /** @type {Buffer} */ (publicKey.export({ type: 'spki', format: 'der' })),
  );
  const signature = sign(null, tbs, privateKey);
  const cert = seq(tbs, ED25519_ALGORITHM, der(0x03, Buffer.from([0]), signature));
  const pem = `-----BEGIN CERTIFICATE-----\n${cert.toString('base64').replace(/.{64}/g, '$&\n').replace(/\n?$/, '\n')}-----END CERTIFICATE-----\n`;
  return { key: /** @type {string} */ (privateKey.export({ type: 'pkcs8', format: 'pem' })), cert: pem };
}
