// @ts-check
/**
 * The STUN/TURN servers a daemon gives the tabs it serves (--stun, --turn, --turn-secret,
 * --turn-user, --turn-ttl, --ice-policy): a real daemon's /worker page carries the STUN
 * URL, and TURN URLs with coturn REST credentials made for that page (username
 * `EXPIRY:USER`, password base64(HMAC-SHA1(secret, username))) that expire --turn-ttl
 * seconds later, and never the secret itself; a page served later gets later
 * credentials; without the options the page carries no server; every bad
 * combination is refused before the daemon starts, with exit status 2 and a message
 * naming the option. (That coturn accepts the credentials is e2e/netsim-nat.test.js.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { startDaemon, newToken, bin } from './helpers/daemons.js';

/** The worker page's embedded configuration. @param {number} port @returns {Promise<{html: string, config: any}>} */
function workerPage(port) {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/worker', timeout: 10_000 }, (res) => {
      let html = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (html += d));
      res.on('end', () => {
        const m = /<script type="application\/json" id="termite-config">(.*?)<\/script>/s.exec(html);
        if (res.statusCode !== 200 || !m) reject(new Error(`GET /worker: ${res.statusCode} ${html.slice(0, 200)}`));
        else resolve({ html, config: JSON.parse(m[1]) });
      });
    });
    req.on('timeout', () => req.destroy(new Error('GET /worker timed out')));
    req.on('error', reject);
  });
}

/** `turn:USER:PASSWORD@REST` as the page carries it. @param {string} url */
function turnParts(url) {
  const m = /^(turns?):([^:@/]+):([^@/]+)@(.+)$/.exec(url);
  assert.ok(m, `a TURN URL with credentials: ${url}`);
  return { scheme: m[1], username: decodeURIComponent(m[2]), credential: decodeURIComponent(m[3]), server: m[4] };
}

test('a daemon puts its STUN server and per-page TURN credentials in the worker page, never the secret', { timeout: 60_000 }, async () => {
  const secret = 'the-shared/secret+of=coturn';
  const d = await startDaemon({
    token: newToken(),
    args: ['--stun', 'stun:198.51.100.7:3478', '--turn', 'turn:198.51.100.7:3478', '--turn', 'turns:turn.example.org:5349?transport=tcp',
      '--turn-secret', secret, '--turn-user', 'tabs', '--turn-ttl', '600', '--ice-policy', 'relay'],
  });
  try {
    const before = Math.floor(Date.now() / 1000);
    const first = await workerPage(d.port);
    const after = Math.ceil(Date.now() / 1000);
    assert.ok(!first.html.includes(secret) && !first.html.includes(encodeURIComponent(secret)), 'the secret is not in the page');
    assert.equal(first.config.iceTransportPolicy, 'relay');
    const [stun, ...turns] = first.config.iceServers;
    assert.equal(stun, 'stun:198.51.100.7:3478');
    assert.equal(turns.length, 2);
    const parts = turns.map(turnParts);
    assert.deepEqual(parts.map((p) => `${p.scheme}:${p.server}`), ['turn:198.51.100.7:3478', 'turns:turn.example.org:5349?transport=tcp']);
    for (const p of parts) {
      const [expiry, user] = p.username.split(':');
      assert.equal(user, 'tabs');
      assert.ok(Number(expiry) >= before + 600 && Number(expiry) <= after + 600, `expires --turn-ttl after the page was served: ${expiry}`);
      assert.equal(p.credential, createHmac('sha1', secret).update(p.username).digest('base64'), 'coturn\'s REST password for that username');
    }
    // a page served later gets credentials that expire later
    await new Promise((r) => setTimeout(r, 1100));
    const later = turnParts((await workerPage(d.port)).config.iceServers[1]);
    assert.ok(Number(later.username.split(':')[0]) > Number(parts[0].username.split(':')[0]), 'fresh credentials per page');
  } finally {
    await d.stop();
  }
});

test('without ICE options the worker page names no STUN or TURN server', { timeout: 60_000 }, async () => {
  const d = await startDaemon({ token: newToken() });
  try {
    const { config } = await workerPage(d.port);
    assert.deepEqual(config.iceServers, []);
    assert.equal(config.iceTransportPolicy, 'all');
  } finally {
    await d.stop();
  }
});

test('bad ICE options are refused before the daemon starts, naming the option', () => {
  const cases = [
    [['--turn', 'turn:198.51.100.7:3478'], /--turn needs --turn-secret/],
    [['--turn', 'turn:user:pass@198.51.100.7:3478', '--turn-secret', 's'], /--turn takes no credentials in the URL/],
    [['--turn', 'http://198.51.100.7', '--turn-secret', 's'], /--turn expects turn:HOST:PORT/],
    [['--stun', 'http://198.51.100.7'], /--stun expects stun:HOST:PORT/],
    [['--turn-secret', 's'], /--turn-secret is given without --turn/],
    [['--ice-policy', 'relay'], /--ice-policy relay needs a --turn server/],
    [['--ice-policy', 'direct'], /--ice-policy expects all or relay/],
    [['--turn', 'turn:198.51.100.7:3478', '--turn-secret', 's', '--turn-ttl', '5'], /--turn-ttl expects whole seconds/],
    [['--turn', 'turn:198.51.100.7:3478', '--turn-secret', 's', '--turn-user', 'a:b'], /--turn-user expects/],
  ];
  for (const [args, message] of /** @type {[string[], RegExp][]} */ (cases)) {
    const r = spawnSync(process.execPath, [bin, '--port', '0', '--token', 't', ...args], { encoding: 'utf8', timeout: 30_000, env: { ...process.env, TERMITE_TURN_SECRET: '' } });
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message, args.join(' '));
  }
});
