// @ts-check
/**
 * The dashboard's HTTP API (node-daemon/src/http/, docs/dashboard.md) against
 * real daemons (OS processes on free loopback ports, stopped by PID): the page and its
 * headers, /api/state, the /api/events stream, /api/eval and its request checks (Host,
 * same origin, the dashboard secret, JSON only, size), `(exit)` through it, and what the
 * monitor derives: another daemon of the mesh, a migration between them with the
 * process's name, message rates.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { startDaemon, newToken, waitFor } from './helpers/daemons.js';
import { request, dashboardSecret } from './helpers/http.js';

/** @type {import('./helpers/daemons.js').Daemon} */
let a;
/** @type {import('./helpers/daemons.js').Daemon} */
let b;
const token = newToken();

/** @type {Map<number, string>} each daemon's dashboard secret, by port */
const secrets = new Map();

before(async () => {
  b = await startDaemon({ token });
  a = await startDaemon({ token, join: [`ws://127.0.0.1:${b.port}`] });
  for (const d of [a, b]) secrets.set(d.port, await secretOf(d.port));
});

after(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
});


/**
 * The dashboard secret in the page the daemon serves, as the page's script reads it.
 * @param {number} port
 */
async function secretOf(port) {
  const secret = await dashboardSecret(port);
  assert.ok(secret, 'the page carries the dashboard secret');
  return secret;
}

/**
 * POST /api/eval as the dashboard does (with its secret, unless the headers say otherwise).
 * @param {number} port @param {string} code @param {string} [node] @param {Record<string, string>} [headers]
 */
function evalOn(port, code, node, headers = {}) {
  return request(port, { method: 'POST', path: '/api/eval', headers: { 'content-type': 'application/json', 'x-termite-eval': String(secrets.get(port)), ...headers }, body: JSON.stringify({ node, code }) });
}

/**
 * POST a body of `size` bytes to /api/eval with a real HTTP client: declared by
 * Content-Length, or chunked (written as the socket takes it). Resolves with the answer
 * the client received, or the error it got instead.
 * @param {number} port @param {number} size @param {{chunked?: boolean, headers?: Record<string, string>}} [opts]
 * @returns {Promise<{status: number, json: any} | {error: string}>}
 */
function postBody(port, size, opts = {}) {
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  return new Promise((resolve) => {
    /** @type {Record<string, string>} */
    const headers = { 'content-type': 'application/json', 'x-termite-eval': String(secrets.get(port)), ...opts.headers };
    if (!opts.chunked) headers['content-length'] = String(size);
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/api/eval', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: /** @type {number} */ (res.statusCode), json: JSON.parse(text) }));
      res.on('error', (e) => resolve({ error: e.message }));
    });
    req.setTimeout(20000, () => req.destroy(new Error('no answer within 20 s')));
    req.on('error', (e) => resolve({ error: e.message }));
    let sent = 0;
    const write = () => {
      while (sent < size && !req.destroyed) {
        const n = Math.min(chunk.length, size - sent);
        sent += n;
        if (!req.write(chunk.subarray(0, n))) return void req.once('drain', write);
      }
      req.end();
    };
    write();
  });
}

/** @param {number} port */
async function state(port) {
  const r = await request(port, { path: '/api/state' });
  assert.equal(r.status, 200, r.text);
  return r.json;
}

test('GET / is the dashboard: one page with its script inlined under a strict CSP, its dashboard secret, no mesh token, never stored', async () => {
  const r = await request(a.port, { path: '/' });
  assert.equal(r.status, 200, r.text);
  assert.match(String(r.headers['content-type']), /^text\/html/);
  const csp = String(r.headers['content-security-policy']);
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /script-src 'sha256-[A-Za-z0-9+/=]+'/);
  assert.match(csp, /frame-ancestors 'none'/);
  assert.equal(r.headers['x-frame-options'], 'DENY');
  assert.match(r.text, /<svg id="graph"/);
  assert.match(r.text, /id="open-worker"/);
  assert.ok(!r.text.includes(token), 'the page does not carry the mesh token');
  assert.ok(!r.text.includes('/*DASHBOARD-JS*/') && !r.text.includes('/*DASHBOARD-CSS*/'), 'script and style are inlined');
  const secret = /<meta name="termite-eval-secret" content="([A-Za-z0-9_-]+)">/.exec(r.text)?.[1];
  assert.equal(secret?.length, 43, '256 bits, base64url');
  assert.equal(r.headers['cache-control'], 'no-store', 'a page with a secret is never stored');
  assert.equal(r.headers.etag, undefined);
  const again = await request(a.port, { path: '/' });
  assert.match(again.text, new RegExp(`content="${secret}"`), 'one secret per daemon run');
  assert.notEqual(await secretOf(b.port), secret, 'each daemon has its own');
});

test('GET /api/state: this daemon and the daemon it joined, with their link and counters', async () => {
  /** @type {any} */
  let s;
  await waitFor(async () => {
    s = await state(a.port);
    return s.nodes.length === 2 && s.nodes.every((/** @type {any} */ n) => !n.unreachable);
  }, 10000, 'both daemons in the snapshot');
  assert.equal(s.ok, true);
  assert.equal(s.self, a.id);
  assert.equal(s.tickMs, 500);
  assert.ok(Array.isArray(s.history) && Array.isArray(s.recentMigrations));
  const [self, other] = s.nodes;
  assert.equal(self.id, a.id, 'this daemon first');
  assert.equal(other.id, b.id);
  for (const n of s.nodes) {
    assert.equal(n.kind, 'daemon');
    assert.equal(typeof n.load, 'number');
    assert.equal(typeof n.processes.live, 'number');
    assert.ok(Array.isArray(n.processes.shown) && Array.isArray(n.spaces));
    for (const k of ['messages', 'sent', 'received', 'migrationsIn', 'migrationsOut', 'spawned']) assert.equal(typeof n.counters[k], 'number', k);
    for (const k of ['messages', 'migrationsIn', 'sent']) assert.equal(typeof n.rates[k], 'number', k);
  }
  assert.equal(self.address, `127.0.0.1:${a.port}`);
  assert.deepEqual(self.peers.map((/** @type {any} */ p) => [p.id, p.transport]), [[b.id, 'tcp']]);
});

test('GET /api/events: a hello with everything, then ticks', async () => {
  const events = await new Promise((resolve, reject) => {
    /** @type {{event: string, data: any}[]} */
    const got = [];
    const req = http.get({ host: '127.0.0.1', port: a.port, path: '/api/events' }, (res) => {
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /^text\/event-stream/);
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (c) => {
        buf += c;
        let i;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event && data) got.push({ event, data: JSON.parse(data) });
          if (got.filter((e) => e.event === 'tick').length >= 2) {
            req.destroy();
            resolve(got);
          }
        }
      });
    });
    req.setTimeout(10000, () => req.destroy(new Error('fewer than 2 ticks in 10 s')));
    req.on('error', reject);
  });
  assert.equal(events[0].event, 'hello');
  assert.equal(events[0].data.self, a.id);
  assert.ok(Array.isArray(events[0].data.nodes) && Array.isArray(events[0].data.history));
  const tick = events.find((/** @type {any} */ e) => e.event === 'tick').data;
  for (const k of ['t', 'nodes', 'sample', 'migrations', 'migrationsTotal', 'error']) assert.ok(k in tick, k);
});

test('POST /api/eval evaluates on this daemon: values, errors, incomplete input', async () => {
  const r = await evalOn(a.port, '(+ 1 2)');
  assert.equal(r.status, 200);
  assert.equal(r.json.ok, true);
  assert.deepEqual(r.json.outputs, ['3']);
  assert.equal(r.json.node, a.id, 'no node: this daemon');
  assert.equal(typeof r.json.ms, 'number');
  const two = await evalOn(a.port, '(define x 20) (display "hi") (* x 2)', a.id);
  assert.deepEqual(two.json.outputs, ['hi', '40'], 'per expression: what it printed, then its value');
  const bad = await evalOn(a.port, '(car 5)');
  assert.equal(bad.status, 200);
  assert.equal(bad.json.ok, false);
  assert.match(bad.json.outputs[0], /^Error: car: expected a pair/);
  const incomplete = await evalOn(a.port, '(+ 1');
  assert.equal(incomplete.json.incomplete, true);
});

test('POST /api/eval on another daemon is refused by it (a daemon evaluates only for its own dashboard)', async () => {
  const r = await evalOn(a.port, '(+ 1 2)', b.id);
  assert.equal(r.status, 502);
  assert.equal(r.json.ok, false);
  assert.match(r.json.error, /does not evaluate code for that peer/);
  const unknown = await evalOn(a.port, '(+ 1 2)', 'nosuchnode0000000000000000000000');
  assert.equal(unknown.status, 502);
  assert.equal(unknown.json.ok, false);
});

test('request checks: Host (DNS rebinding), same origin (CSRF), JSON only, method, size', async () => {
  const port = a.port;
  // a DNS name that is not this daemon's
  const rebound = await request(port, { path: '/api/state', headers: { host: `evil.example:${port}` } });
  assert.equal(rebound.status, 421);
  assert.equal((await request(port, { path: '/', headers: { host: 'evil.example' } })).status, 421);
  assert.equal((await request(port, { path: '/api/state', headers: { host: `localhost:${port}` } })).status, 200);
  // a page of another origin
  const cross = await evalOn(port, '(+ 1 2)', undefined, { origin: 'http://evil.example' });
  assert.equal(cross.status, 403);
  const crossSite = await evalOn(port, '(+ 1 2)', undefined, { 'sec-fetch-site': 'cross-site' });
  assert.equal(crossSite.status, 403);
  const sameSite = await evalOn(port, '(+ 1 2)', undefined, { 'sec-fetch-site': 'same-site' });
  assert.equal(sameSite.status, 403, 'another port of the same host is another origin');
  const same = await evalOn(port, '(+ 1 2)', undefined, { origin: `http://127.0.0.1:${port}`, 'sec-fetch-site': 'same-origin' });
  assert.equal(same.status, 200);
  assert.deepEqual(same.json.outputs, ['3']);
  // a form post (a "simple" request a cross-origin page could send without a preflight)
  const form = await request(port, { method: 'POST', path: '/api/eval', headers: { 'content-type': 'text/plain', 'x-termite-eval': String(secrets.get(port)) }, body: JSON.stringify({ code: '(+ 1 2)' }) });
  assert.equal(form.status, 415);
  const urlencoded = await request(port, { method: 'POST', path: '/api/eval', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-termite-eval': String(secrets.get(port)) }, body: 'code=(%2B 1 2)' });
  assert.equal(urlencoded.status, 415);
  // a CORS preflight is never granted
  const preflight = await request(port, { method: 'OPTIONS', path: '/api/eval', headers: { origin: 'http://evil.example', 'access-control-request-method': 'POST' } });
  assert.notEqual(preflight.status, 204);
  assert.equal(preflight.headers['access-control-allow-origin'], undefined);
  // method, body
  assert.equal((await request(port, { path: '/api/eval' })).status, 405);
  const json = { 'content-type': 'application/json', 'x-termite-eval': String(secrets.get(port)) };
  assert.equal((await request(port, { method: 'POST', path: '/api/eval', headers: json, body: '{"code": ' })).status, 400);
  assert.equal((await request(port, { method: 'POST', path: '/api/eval', headers: json, body: '{"node": 1}' })).status, 400);
  const big = await evalOn(port, `'${'x'.repeat(70000)}`);
  assert.equal(big.status, 413);
  assert.equal(big.json.ok, false);
  assert.equal((await request(port, { path: '/api/nothing' })).status, 404);
});

test('POST /api/eval takes the dashboard secret: none, a wrong one, the mesh token or another daemon\'s get 401 and a log line', async () => {
  const port = a.port;
  assert.equal((await evalOn(port, '(define refused-runs 0)')).status, 200);
  const code = '(set! refused-runs (+ refused-runs 1))';
  const secret = String(secrets.get(port));
  const cases = [
    ['no header', undefined],
    ['empty', ''],
    ['wrong', 'x'.repeat(43)],
    ['one character off', secret.slice(0, -1) + (secret.endsWith('A') ? 'B' : 'A')],
    ['a prefix', secret.slice(0, 20)],
    ['the secret and more', `${secret}x`],
    ['the mesh token', token],
    ['the other daemon\'s secret', String(secrets.get(b.port))],
  ];
  for (const [what, given] of cases) {
    /** @type {Record<string, string>} */
    const headers = { 'content-type': 'application/json' };
    if (given !== undefined) headers['x-termite-eval'] = given;
    const r = await request(port, { method: 'POST', path: '/api/eval', headers, body: JSON.stringify({ code }) });
    assert.equal(r.status, 401, `${what}: ${r.text}`);
    assert.equal(r.json.ok, false);
    assert.match(r.json.error, /dashboard secret/, what);
    assert.match(r.json.error, /X-Termite-Eval/, what);
  }
  const check = await evalOn(port, 'refused-runs');
  assert.deepEqual(check.json.outputs, ['0'], 'no refused evaluation ran');
  // logged (at most a line a second: a refusal is repeated until one is written)
  await waitFor(async () => {
    await request(port, { method: 'POST', path: '/api/eval', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code }) });
    return /http: refused POST \/api\/eval from 127\.0\.0\.1:\d+: 401 no dashboard secret/.test(a.log());
  }, 5000, 'the 401 in the daemon\'s log');
  // a large body without the secret: the client receives the 401 (not a reset), nothing is buffered
  const unauth = await postBody(port, 8 * 1024 * 1024, { headers: { 'x-termite-eval': 'nope' } });
  assert.ok('status' in unauth, `the client got an answer: ${JSON.stringify(unauth)}`);
  assert.equal(unauth.status, 401);
});

test('(exit) through POST /api/eval is answered at once; the daemon and the REPL keep serving', async () => {
  const port = a.port;
  assert.equal((await evalOn(port, '(define before-exit 41)')).status, 200);
  for (const [code, exited, printed] of [['(display "bye") (exit 7) (display "never")', 7, ['bye']], ['(exit)', true, []], ['(emergency-exit 3)', 3, []]]) {
    const t0 = Date.now();
    const r = await evalOn(port, /** @type {string} */ (code));
    assert.ok(Date.now() - t0 < 3000, `answered in ${Date.now() - t0} ms`);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.ok, false);
    assert.equal(r.json.exited, exited);
    assert.deepEqual(r.json.outputs, printed, 'what it printed before exiting; nothing after');
    assert.match(r.json.error, /exit ends only the REPL's process, not the node/);
  }
  const after = await evalOn(port, '(+ before-exit 1)');
  assert.equal(after.status, 200, after.text);
  assert.deepEqual(after.json.outputs, ['42'], 'definitions survive; a new REPL process takes the next input');
  // two at once: neither hangs, neither breaks the other
  const [x, y] = await Promise.all([evalOn(port, '(exit 5)'), evalOn(port, '(* 6 7)')]);
  assert.equal(x.json.exited, 5);
  assert.equal(y.status, 200);
  assert.ok(y.json.outputs.length === 1, y.text);
  const health = await request(port, { path: '/health' });
  assert.equal(health.status, 200);
  assert.equal(health.json.ok, true);
});

test('an oversized /api/eval body gets 413 with a JSON error that a real client receives (declared, chunked, 100 MB), and the daemon keeps serving', async () => {
  const port = a.port;
  for (const [size, chunked] of [[70 * 1024, false], [70 * 1024, true], [5 * 1024 * 1024, false], [5 * 1024 * 1024, true], [100 * 1024 * 1024, false]]) {
    const r = await postBody(port, /** @type {number} */ (size), { chunked: /** @type {boolean} */ (chunked) });
    assert.ok('status' in r, `${size} bytes${chunked ? ', chunked' : ''}: the client got an answer, not ${JSON.stringify(r)}`);
    assert.equal(r.status, 413);
    assert.equal(r.json.ok, false);
    assert.match(r.json.error, /the body is over 65536 bytes/);
  }
  // fetch (undici) too
  const f = await fetch(`http://127.0.0.1:${port}/api/eval`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-termite-eval': String(secrets.get(port)) }, body: 'x'.repeat(2 * 1024 * 1024), signal: AbortSignal.timeout(20000) });
  assert.equal(f.status, 413);
  assert.equal((await f.json()).ok, false);
  const ok = await evalOn(port, '(+ 1 2)');
  assert.deepEqual(ok.json.outputs, ['3']);
  await waitFor(async () => {
    await postBody(port, 70 * 1024);
    return /http: refused POST \/api\/eval from 127\.0\.0\.1:\d+: 413 the body is over 65536 bytes/.test(a.log());
  }, 5000, 'the 413 in the daemon\'s log');
});

/**
 * One request made by a node process running as OS user `uid` (the test runs as root).
 * @param {number} uid @param {string} url @param {{method?: string, headers?: Record<string, string>, body?: string}} [init]
 * @returns {{status: number, text: string}}
 */
function requestAs(uid, url, init = {}) {
  const script = 'fetch(process.argv[1], JSON.parse(process.argv[2])).then(async (r) => process.stdout.write(JSON.stringify({status: r.status, text: await r.text()})), (e) => { process.stderr.write(String(e)); process.exit(3); })';
  const r = spawnSync(process.execPath, ['-e', script, url, JSON.stringify(init)], { uid, gid: uid, encoding: 'utf8', timeout: 15000 });
  assert.equal(r.status, 0, `request as uid ${uid} failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

const asRoot = typeof process.getuid === 'function' && process.getuid() === 0 && existsSync('/proc/net/tcp');
test('on a shared machine, the dashboard page, the REPL and the worker page answer only the daemon\'s own OS user (and root); what every peer sees stays open', { skip: asRoot ? false : 'needs root (to act as other OS users) and Linux /proc/net/tcp' }, async () => {
  const owner = 65534;
  const other = 65533;
  const d = await startDaemon({ token: newToken(), uid: owner });
  try {
    const base = `http://127.0.0.1:${d.port}`;
    const page = requestAs(owner, `${base}/`);
    assert.equal(page.status, 200, page.text);
    const secret = /<meta name="termite-eval-secret" content="([^"]+)">/.exec(page.text)?.[1];
    assert.ok(secret);
    const evalInit = { method: 'POST', headers: { 'content-type': 'application/json', 'x-termite-eval': secret }, body: JSON.stringify({ code: '(+ 1 2)' }) };
    const mine = requestAs(owner, `${base}/api/eval`, evalInit);
    assert.equal(mine.status, 200, mine.text);
    assert.deepEqual(JSON.parse(mine.text).outputs, ['3']);
    // another user of the machine: neither the page (so not the secret) nor the REPL, even with the secret
    const theirs = requestAs(other, `${base}/`);
    assert.equal(theirs.status, 403);
    assert.doesNotMatch(theirs.text, new RegExp(secret), 'the secret is not in the refusal');
    assert.match(theirs.text, /for the OS user it runs as \(uid 65534\); this connection is from uid 65533/);
    const stolen = requestAs(other, `${base}/api/eval`, evalInit);
    assert.equal(stolen.status, 403);
    assert.equal(JSON.parse(stolen.text).ok, false);
    // nor the worker page, which holds the mesh token
    assert.equal(requestAs(other, `${base}/worker`).status, 403);
    assert.equal(requestAs(owner, `${base}/worker`).status, 200);
    for (const open of ['/health', '/api/state']) assert.equal(requestAs(other, `${base}${open}`).status, 200, open);
    // root may (it could read the daemon's memory anyway)
    assert.equal(requestAs(0, `${base}/api/eval`, evalInit).status, 200);
    await waitFor(() => /http: refused (GET \/|POST \/api\/eval) from 127\.0\.0\.1:\d+: 403 this daemon's dashboard/.test(d.log()), 5000, 'the refusal in the log');
  } finally {
    await d.stop();
  }
});

test('one Host rule for every browser route (the stricter of the former two): IP literals, localhost, --host; no other spelling', async () => {
  const port = a.port;
  for (const p of ['/', '/api/state', '/api/eval', '/worker', '/assets/manifest.json', '/health']) {
    for (const bad of ['evil.example', `localhost.:${port}`, `127.0.0.1.:${port}`, '999.0.0.1', '[::1', `[evil]:${port}`, 'localhost.evil.example', 'local host']) {
      const r = await request(port, { path: p, headers: { host: bad } });
      assert.equal(r.status, 421, `${p} Host: ${bad}`);
      if (p.startsWith('/api/') || p === '/health') assert.equal(r.json?.ok, false, 'refusals under /api and of /health are JSON');
    }
    for (const good of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, 'LOCALHOST', '127.0.0.1']) {
      const r = await request(port, { method: p === '/api/eval' ? 'PUT' : 'HEAD', path: p, headers: { host: good } });
      assert.equal(r.status, p === '/api/eval' ? 405 : 200, `${p} Host: ${good}`);
    }
  }
  const wrongMethod = await request(port, { method: 'DELETE', path: '/worker' });
  assert.equal(wrongMethod.status, 405);
  assert.equal(wrongMethod.headers.allow, 'GET, HEAD');
  assert.equal((await request(port, { path: '/assets/no-such-file.js' })).status, 404);
});

test('the monitor: a migration between the daemons is seen, with the process\'s name; messages are counted as rates', async () => {
  const spawned = await evalOn(a.port, `(define (api-wanderer) (recv ((dest) (migrate dest))) (recv (x x) (after 60 'done)))
(define w (spawn api-wanderer))
(define (api-echo) (let loop () (recv ((from x) (! from x))) (loop)))
(define (api-pinger) (let ((e (spawn api-echo))) (let loop () (! e (list (self) 1)) (recv (_ #t)) (recv (after 0.002 #t)) (loop))))
(spawn api-pinger)
w`);
  assert.equal(spawned.json.ok, true, spawned.text);
  const m = /#<pid (\d+)@(\w+)>/.exec(spawned.json.outputs.at(-1));
  assert.ok(m);
  const pid = `${m[1]}@${m[2].slice(0, 8)}`;
  // seen on this daemon first
  await waitFor(async () => (await state(a.port)).nodes[0].processes.shown.some((/** @type {any} */ p) => p.pid === pid && p.name === 'api-wanderer'), 10000, 'the process on daemon a');
  const go = await evalOn(a.port, `(! w (list (make-node "127.0.0.1" ${b.port})))`);
  assert.equal(go.json.ok, true, go.text);
  /** @type {any} */
  let s;
  await waitFor(async () => {
    s = await state(a.port);
    return s.recentMigrations.some((/** @type {any} */ x) => x.pid === pid);
  }, 10000, 'the migration in /api/state');
  const mig = s.recentMigrations.find((/** @type {any} */ x) => x.pid === pid);
  assert.deepEqual({ from: mig.from, to: mig.to, name: mig.name }, { from: a.id, to: b.id, name: 'api-wanderer' });
  const there = s.nodes.find((/** @type {any} */ n) => n.id === b.id).processes.shown.find((/** @type {any} */ p) => p.pid === pid);
  assert.equal(there?.name, 'api-wanderer', 'listed on daemon b under the name it was started with');
  assert.equal(there?.migrated, true);
  assert.ok(s.migrationsTotal >= 1);
  await waitFor(async () => {
    const st = await state(a.port);
    return (st.history.at(-1)?.messages ?? 0) > 10 && st.nodes[0].rates.messages > 10;
  }, 10000, 'a message rate in the history');
});

test('the monitor lists a migration out and back that happens between two samples (each node reports its arrivals)', async () => {
  await state(a.port); // the monitor is sampling, and has seen both daemons once
  await waitFor(async () => (await state(a.port)).nodes.filter((/** @type {any} */ n) => !n.unreachable).length === 2, 10000, 'both daemons sampled');
  const r = await evalOn(a.port, `(define (api-boomerang home) (migrate (make-node "127.0.0.1" ${b.port})) (migrate home) (! home-waiter 'back))
(define home-waiter (self))
(define bp (spawn (lambda () (api-boomerang (current-node)))))
(recv ('back bp) (after 10 'lost))`);
  assert.equal(r.json.ok, true, r.text);
  const m = /#<pid (\d+)@(\w+)>/.exec(r.json.outputs.at(-1));
  assert.ok(m, r.text);
  const pid = `${m[1]}@${m[2].slice(0, 8)}`;
  /** @type {any[]} */
  let moves = [];
  await waitFor(async () => {
    moves = (await state(a.port)).recentMigrations.filter((/** @type {any} */ x) => x.pid === pid);
    return moves.length >= 2;
  }, 10000, 'both hops in /api/state');
  assert.deepEqual(moves.map((x) => [x.from, x.to]), [[a.id, b.id], [b.id, a.id]]);
});
