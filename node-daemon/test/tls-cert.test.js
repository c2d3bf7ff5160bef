// @ts-check
/**
 * `termite-node --tls-cert FILE --tls-key FILE`: the daemon's port serves https:// and
 * wss:// with that certificate, beside its plain http:// and its mesh links (TLS, on the
 * same port). Real daemons on free loopback ports, real TLS clients; every daemon is
 * stopped by PID. The certificate is made by openssl (helpers/test-certificate.js).
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { WebSocket } from 'ws';
import { bin, startDaemon, runProgram, health, newToken } from './helpers/daemons.js';
import { makeTestCertificate, opensslInstalled } from './helpers/test-certificate.js';

const skip = opensslInstalled() ? false : 'the openssl command is not installed';
/** @type {import('./helpers/daemons.js').Daemon[]} */
const started = [];
/** @type {Array<() => void>} */
const cleanups = [];
after(async () => {
  await Promise.all(started.map((d) => d.stop('SIGKILL')));
  for (const c of cleanups) c();
});

/** GET over https, trusting `ca` only. @param {string} url @param {Buffer} ca */
function httpsGet(url, ca) {
  return /** @type {Promise<{status: number, body: string, fingerprint: string}>} */ (new Promise((resolve, reject) => {
    const req = https.get(url, { ca, timeout: 10000 }, (res) => {
      let body = '';
      const fingerprint = /** @type {import('node:tls').TLSSocket} */ (res.socket).getPeerCertificate().fingerprint256;
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, fingerprint }));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url} in 10 s`)));
    req.on('error', reject);
  }));
}

test('--tls-cert: https:// and wss:// on the daemon\'s port with that certificate; http://, mesh links and programs go on as before', { skip }, async () => {
  const c = makeTestCertificate();
  cleanups.push(c.remove);
  const token = newToken();
  const d = await startDaemon({ token, args: ['--tls-cert', c.certFile, '--tls-key', c.keyFile] });
  started.push(d);
  assert.match(d.log(), new RegExp(`listening on https://127\\.0\\.0\\.1:${d.port}`));

  // a client that trusts only this certificate gets /health over https, from this certificate
  const h = await httpsGet(`https://127.0.0.1:${d.port}/health`, c.cert);
  assert.equal(h.status, 200);
  assert.equal(h.fingerprint, c.fingerprint256);
  assert.equal(JSON.parse(h.body).id, d.id);
  // the worker page served over https joins over wss://
  const page = await httpsGet(`https://127.0.0.1:${d.port}/worker`, c.cert);
  assert.match(page.body, new RegExp(`"join":"wss://127\\.0\\.0\\.1:${d.port}/"`));
  // plain http is still served (a page on loopback, the tests' health checks)
  assert.equal((await health(d.url)).id, d.id);

  // a wss:// upgrade opens (admission then runs on it as on ws://)
  const ws = new WebSocket(`wss://127.0.0.1:${d.port}/`, { ca: c.cert });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  ws.terminate();

  // programs: one joins over wss:// (trusting the certificate as Node does, NODE_EXTRA_CA_CERTS),
  // one over the mesh's TLS link on the same port; both remote-spawn on the daemon
  const prog = `(define d (make-node "127.0.0.1" ${d.port}))
(define me (self))
(remote-spawn d (lambda () (! me (list 'on (node-id (current-node))))))
(recv ((on id) (display id) (newline)) (after 10 (display "no answer") (newline)))`;
  const overWss = await runProgram(prog, { token, join: [`wss://127.0.0.1:${d.port}`], env: { NODE_EXTRA_CA_CERTS: c.certFile } });
  assert.equal(overWss.status, 0, overWss.stderr);
  assert.equal(overWss.stdout.trim(), d.id);
  const overTls = await runProgram(prog, { token, join: [d.url] });
  assert.equal(overTls.status, 0, overTls.stderr);
  assert.equal(overTls.stdout.trim(), d.id);
});

test('--tls-cert: a key that does not match, an unreadable file, or one option alone stop the start with a clear message', { skip }, () => {
  const a = makeTestCertificate();
  const b = makeTestCertificate();
  cleanups.push(a.remove, b.remove);
  const run = (/** @type {string[]} */ args) => spawnSync(process.execPath, [bin, '--port', '0', '--token', newToken(), ...args], { encoding: 'utf8', timeout: 20000 });
  const mismatch = run(['--tls-cert', a.certFile, '--tls-key', b.keyFile]);
  assert.equal(mismatch.status, 1);
  assert.match(mismatch.stderr, /cannot start: the TLS certificate and key cannot be used: .*key values mismatch/);
  const missing = run(['--tls-cert', path.join(path.dirname(a.certFile), 'nothing.pem'), '--tls-key', a.keyFile]);
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /cannot read the TLS certificate \(--tls-cert\) .*nothing\.pem/);
  const notPem = path.join(path.dirname(a.certFile), 'not.pem');
  writeFileSync(notPem, 'not a certificate\n');
  const bad = run(['--tls-cert', notPem, '--tls-key', a.keyFile]);
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /the TLS certificate and key cannot be used/);
  const alone = run(['--tls-cert', a.certFile]);
  assert.equal(alone.status, 2);
  assert.match(alone.stderr, /--tls-cert and --tls-key go together/);
});
