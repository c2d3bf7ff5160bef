// @ts-check
/**
 * The daemon's dashboard: the page at `/` and its API under `/api/`.
 *
 *   GET  /             the dashboard (one HTML page; its script and stylesheet are
 *                      bundled from web/src/dashboard/ by esbuild on first request and
 *                      inlined, so the page needs nothing but this daemon)
 *   GET  /api/state    the mesh now, as JSON: every reachable node's snapshot with its
 *                      rates, the recent rate history and the recent migrations
 *   GET  /api/events   the same as a Server-Sent Events stream: `hello` (everything),
 *                      then a `tick` every 500 ms (nodes, the new sample, new migrations)
 *   POST /api/eval     {node, code} → {ok, incomplete, outputs, node, ms}: evaluate Scheme
 *                      text on a node of the mesh (this daemon, or a tab that lets this
 *                      daemon evaluate there)
 *
 * One Monitor per host samples the mesh (Distribution.meshSnapshot) only while someone
 * is looking — an open event stream, or /api/state asked for in the last 15 s — so an
 * unwatched daemon sends no dashboard traffic. Every viewer shares the same samples: a
 * snapshot is at most one mesh round per 250 ms however many dashboards are open.
 *
 * Security (docs/dashboard.md): whoever can reach the port can use all of this, and
 * /api/eval on the daemon is full access to the daemon. What this module adds: requests
 * whose Host is a DNS name other than localhost or the --host name are refused (DNS
 * rebinding), cross-origin POSTs are refused, /api/eval takes only application/json
 * (no form posts), the page gets a strict Content-Security-Policy and may not be framed,
 * and the mesh token is not in the page.
 */
import { readFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the dashboard's browser sources live. */
export const dashboardDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'web', 'src', 'dashboard');

const TICK_MS = 500;
const CACHE_MS = 250;
const INTEREST_MS = 15000;
const SNAPSHOT_BOUND_MS = 2500;
const NODE_TIMEOUT_MS = 1500;
const RATE_WINDOW_MS = 4000; // rates are averaged over this window (smooth lines, ~2 s behind)
const HISTORY = 240; // samples kept: two minutes at TICK_MS
const RECENT_MIGRATIONS = 60;
const SEEN_MS = 10000; // how long a process missing from the snapshots is remembered
const MAX_BODY = 64 * 1024;
const MAX_STREAMS = 64;
const EVAL_BOUND_MS = 35000;
/** Counters whose per-second rates are sampled (names as in a node snapshot's counters). */
const RATE_KEYS = /** @type {const} */ (['messages', 'migrationsIn', 'sent', 'received', 'forwarded', 'spawned', 'exited', 'slices']);

/**
 * Route a request to the dashboard if it is one of its paths.
 * @param {import('node:http').IncomingMessage} req
 * @param {import('node:http').ServerResponse} res
 * @param {any} host a started host (node-daemon/src/host.js)
 * @returns {boolean} true if this module answered (or is answering) the request
 */
export function handleDashboard(req, res, host) {
  const url = new URL(req.url ?? '/', 'http://x');
  const p = url.pathname;
  if (p !== '/' && p !== '/index.html' && p !== '/api' && !p.startsWith('/api/')) return false;
  if (!hostAllowed(req, host)) {
    sendText(res, 421, 'This dashboard answers only to its address (127.0.0.1, localhost or the --host name).\n');
    return true;
  }
  const run = async () => {
    if (p === '/' || p === '/index.html') return servePage(req, res);
    if (p === '/api/state') return serveState(req, res, host);
    if (p === '/api/events') return serveEvents(req, res, host);
    if (p === '/api/eval') return serveEval(req, res, host);
    return sendJson(res, 404, { ok: false, error: `no such endpoint: ${p}` });
  };
  run().catch((e) => {
    if (!res.headersSent) sendJson(res, 500, { ok: false, error: errorText(e) });
    else res.destroy();
  });
  return true;
}

// ------------------------------------------------------------------ the page

/** @type {Promise<{html: string, etag: string, csp: string}>|null} */
let page = null;

/**
 * Bundle web/src/dashboard/main.js (and the CSS it imports) and inline both into
 * index.html. Built once per process.
 */
export function buildPage() {
  page ??= (async () => {
    const esbuild = await import('esbuild');
    const out = await esbuild.build({
      entryPoints: [path.join(dashboardDir, 'main.js')],
      bundle: true,
      write: false,
      format: 'iife',
      minify: true,
      target: ['chrome100', 'firefox100', 'safari15'],
      outdir: path.join(dashboardDir, 'out'),
      legalComments: 'none',
      logLevel: 'silent',
    });
    const js = out.outputFiles.find((f) => f.path.endsWith('.js'))?.text ?? '';
    const css = out.outputFiles.find((f) => f.path.endsWith('.css'))?.text ?? '';
    const script = js.replace(/<\/(script)/gi, '<\\/$1');
    const style = css.replace(/<\/(style)/gi, '<\\/$1');
    const template = await readFile(path.join(dashboardDir, 'index.html'), 'utf8');
    const html = template
      .replace('/*DASHBOARD-CSS*/', () => style)
      .replace('/*DASHBOARD-JS*/', () => script);
    const scriptHash = createHash('sha256').update(script).digest('base64');
    const csp = [
      "default-src 'none'",
      `script-src 'sha256-${scriptHash}'`,
      "style-src 'unsafe-inline'",
      "img-src 'self' data:",
      "connect-src 'self'",
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join('; ');
    return { html, etag: `"${createHash('sha256').update(html).digest('base64url').slice(0, 22)}"`, csp };
  })();
  page.catch(() => (page = null)); // a failed build is retried on the next request
  return page;
}

/** @param {import('node:http').IncomingMessage} req @param {import('node:http').ServerResponse} res */
async function servePage(req, res) {
  if (req.method !== 'GET' && req.method !== 'HEAD') return sendJson(res, 405, { ok: false, error: 'GET only' });
  let built;
  try {
    built = await buildPage();
  } catch (e) {
    return sendText(res, 500, `The dashboard could not be built (esbuild, from the repository's devDependencies, bundles it): ${errorText(e)}\n`);
  }
  const headers = {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': built.csp,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-cache',
    etag: built.etag,
  };
  if (req.headers['if-none-match'] === built.etag) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  res.writeHead(200, headers);
  res.end(req.method === 'HEAD' ? undefined : built.html);
}

// ------------------------------------------------------------------ state and events

/** @param {import('node:http').IncomingMessage} req @param {import('node:http').ServerResponse} res @param {any} host */
async function serveState(req, res, host) {
  if (req.method !== 'GET' && req.method !== 'HEAD') return sendJson(res, 405, { ok: false, error: 'GET only' });
  const m = monitorOf(host);
  m.interestUntil = Date.now() + INTEREST_MS;
  m.ensureRunning();
  const tick = await m.fresh();
  sendJson(res, 200, { ...m.hello(), ...tick, ok: true });
}

/** @param {import('node:http').IncomingMessage} req @param {import('node:http').ServerResponse} res @param {any} host */
async function serveEvents(req, res, host) {
  if (req.method !== 'GET') return sendJson(res, 405, { ok: false, error: 'GET only' });
  const m = monitorOf(host);
  if (m.clients.size >= MAX_STREAMS) return sendJson(res, 503, { ok: false, error: 'too many open dashboards on this daemon' });
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
    'x-content-type-options': 'nosniff',
    'x-accel-buffering': 'no',
  });
  res.write('retry: 1000\n\n');
  m.clients.add(res);
  res.on('close', () => m.clients.delete(res));
  m.ensureRunning();
  const tick = await m.fresh();
  if (!res.writableEnded) writeEvent(res, 'hello', { ...m.hello(), ...tick });
}

/** @param {import('node:http').ServerResponse} res @param {string} event @param {any} data */
function writeEvent(res, event, data) {
  if (res.writableEnded || res.destroyed) return;
  if (res.writableLength > 4 * 1024 * 1024) {
    res.destroy(); // a viewer that does not read: drop it rather than buffer without bound
    return;
  }
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

/** @type {WeakMap<any, Monitor>} */
const monitors = new WeakMap();

/** @param {any} host */
function monitorOf(host) {
  let m = monitors.get(host);
  if (!m) {
    m = new Monitor(host);
    monitors.set(host, m);
  }
  return m;
}

/**
 * @typedef {object} Migration
 * @property {number} t when it was seen (ms since the epoch)
 * @property {string} pid
 * @property {string} name
 * @property {string} from node id
 * @property {string} to node id
 */
/**
 * @typedef {object} Sample one point of the rate history
 * @property {number} t
 * @property {number} messages messages delivered per second, summed over the mesh
 * @property {number} migrations processes arriving per second
 * @property {number} sent values sent to other nodes per second
 * @property {number} received
 * @property {number} forwarded
 * @property {number} spawned
 * @property {number} exited
 * @property {number} slices
 * @property {number} processes live processes, summed
 * @property {number} tuples tuples held, summed
 * @property {number} nodes reachable nodes
 */
/**
 * @typedef {object} Tick
 * @property {number} t
 * @property {any[]} nodes snapshots, each with `rates` (per second, this node)
 * @property {Sample|null} sample
 * @property {Migration[]} migrations seen in this tick
 * @property {number} migrationsTotal arrivals counted since the dashboard started watching
 * @property {string|null} error why the snapshot failed (then nodes are the last known)
 */

/**
 * Samples one host's mesh while anyone watches; derives rates and migrations.
 */
class Monitor {
  /** @param {any} host */
  constructor(host) {
    this.host = host;
    /** @type {Set<import('node:http').ServerResponse>} */
    this.clients = new Set();
    this.interestUntil = 0;
    /** @type {NodeJS.Timeout|null} */
    this.timer = null;
    /** @type {Promise<Tick>|null} */
    this.inflight = null;
    /** @type {Tick|null} */
    this.last = null;
    /** @type {Sample[]} */
    this.history = [];
    /** @type {Migration[]} */
    this.migrations = [];
    this.migrationsTotal = 0;
    /** @type {Map<string, Record<string, number>>} node id → counters at the last tick */
    this.counters = new Map();
    /** @type {{t: number, counters: Map<string, Record<string, number>>}[]} the last ticks' counters (rates) */
    this.window = [];
    /**
     * pid → where it was last seen, and its name: a process in flight between two
     * snapshots is missing from one tick, and a process that migrated here is named
     * after its current frame, not the procedure it was started with
     * @type {Map<string, {node: string, name: string, t: number}>}
     */
    this.seen = new Map();
    /** node id → the last arrival number taken from its snapshot (Distribution#arrivals) @type {Map<string, number>} */
    this.arrivalSeqs = new Map();
    /** `${pid}>${node}` → tick time of a migration taken from arrivals, so the sightings do not list it again @type {Map<string, number>} */
    this.fromArrivals = new Map();
    /** @type {Map<string, {kind: string, address: string|null}>} what each node was when last reached */
    this.known = new Map();
    this.prevT = 0;
  }

  /** What a new viewer gets first. */
  hello() {
    return {
      self: this.host.node?.id ?? null,
      tickMs: TICK_MS,
      history: this.history,
      recentMigrations: this.migrations,
    };
  }

  ensureRunning() {
    if (this.timer !== null) return;
    this.timer = setInterval(() => this.loop(), TICK_MS);
    this.timer.unref();
  }

  stopRunning() {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  get hostStopping() {
    const h = this.host;
    return Boolean(h.node?.stopped) || (h.server !== undefined && !h.server.listening);
  }

  async loop() {
    if (this.hostStopping) {
      // the daemon is stopping: end the streams so its server can close now
      for (const c of this.clients) c.end();
      this.clients.clear();
      this.stopRunning();
      return;
    }
    if (this.clients.size === 0 && Date.now() > this.interestUntil) {
      this.stopRunning();
      return;
    }
    if (this.inflight !== null) return; // a slow mesh: skip a beat rather than pile up
    const tick = await this.tick();
    for (const c of this.clients) {
      writeEvent(c, 'tick', { t: tick.t, nodes: tick.nodes, sample: tick.sample, migrations: tick.migrations, migrationsTotal: tick.migrationsTotal, error: tick.error });
    }
  }

  /** The last tick if it is younger than CACHE_MS, else a new one. */
  fresh() {
    if (this.last !== null && Date.now() - this.last.t < CACHE_MS) return Promise.resolve(this.last);
    return this.tick();
  }

  /** One snapshot of the mesh (one at a time, shared by every caller). @returns {Promise<Tick>} */
  tick() {
    this.inflight ??= this.sample().finally(() => (this.inflight = null));
    return this.inflight;
  }

  /** @returns {Promise<Tick>} */
  async sample() {
    let nodes;
    let error = null;
    try {
      nodes = await bounded(this.snapshot(), SNAPSHOT_BOUND_MS, 'the mesh snapshot');
    } catch (e) {
      error = errorText(e);
      nodes = this.last?.nodes ?? [];
    }
    const t = Date.now();
    const tick = error === null ? this.derive(t, nodes) : { t, nodes, sample: null, migrations: [], migrationsTotal: this.migrationsTotal, error };
    this.last = tick;
    return tick;
  }

  /** @returns {Promise<any[]>} */
  async snapshot() {
    const d = this.host.distribution;
    if (d) return d.meshSnapshot(NODE_TIMEOUT_MS);
    const n = this.host.node;
    return n ? [n.snapshot()] : [];
  }

  /**
   * Rates per node and summed, migrations (a pid seen on another node than at the
   * last tick), history.
   * @param {number} t @param {any[]} nodes @returns {Tick}
   */
  derive(t, nodes) {
    // after a pause (nobody watched) the counters' differences are not rates
    const gap = this.prevT === 0 || t - this.prevT > 5 * TICK_MS;
    if (gap) this.window = [];
    // rates are measured over the last RATE_WINDOW_MS, not one tick: smoother lines
    const ref = this.window.find((w) => t - w.t <= RATE_WINDOW_MS + TICK_MS / 2) ?? null;
    const dt = ref ? Math.max(1, t - ref.t) / 1000 : 1;
    /** @type {Record<string, number>} */
    const sums = Object.fromEntries(RATE_KEYS.map((k) => [k, 0]));
    let processes = 0;
    let tuples = 0;
    let reachable = 0;
    /** @type {Map<string, Record<string, number>>} */
    const counters = new Map();
    for (const n of nodes) {
      if (n?.unreachable) {
        // an unreachable node is shown as what it was when last reached (a tab stays a tab)
        const k = this.known.get(n.id);
        n.kind = k?.kind ?? 'unknown';
        n.address = k?.address ?? null;
      }
      if (!n || n.unreachable) continue;
      this.known.set(n.id, { kind: n.kind, address: n.address ?? null });
      reachable++;
      const c = n.counters ?? {};
      const prev = this.counters.get(n.id);
      const base = ref?.counters.get(n.id);
      /** @type {Record<string, number>} */
      const rates = {};
      for (const k of RATE_KEYS) {
        const d = base ? (c[k] ?? 0) - (base[k] ?? 0) : 0;
        rates[k] = d > 0 ? d / dt : 0;
        sums[k] += rates[k];
      }
      // arrivals: a node seen for the first time brings what it counted before
      const arrived = prev ? (c.migrationsIn ?? 0) - (prev.migrationsIn ?? 0) : (c.migrationsIn ?? 0);
      if (arrived > 0) this.migrationsTotal += arrived;
      n.rates = rates;
      counters.set(n.id, c);
      processes += n.processes?.live ?? 0;
      for (const s of n.spaces ?? []) tuples += s.tuples ?? 0;
    }
    /** @type {Migration[]} */
    const moved = [];
    if (gap) {
      this.seen.clear();
      this.arrivalSeqs.clear();
    }
    // every migration a node recorded since the last tick, even one that came and went
    // between two ticks (a node seen for the first time brings only its later ones)
    for (const n of nodes) {
      if (!n || n.unreachable || !Array.isArray(n.arrivals)) continue;
      const last = this.arrivalSeqs.get(n.id);
      for (const a of n.arrivals) {
        if (last === undefined || !(a.seq > last)) continue;
        moved.push({ t, pid: a.pid, name: this.seen.get(a.pid)?.name ?? a.name, from: a.from, to: n.id });
        this.fromArrivals.set(`${a.pid}>${n.id}`, t);
      }
      this.arrivalSeqs.set(n.id, n.arrivals.at(-1)?.seq ?? last ?? 0);
    }
    chainHops(moved, (pid) => this.seen.get(pid)?.node ?? birthNode(pid, nodes));
    // and what the process lists show: a pid listed on another node than before (nodes
    // that report no arrivals, or a move the arrivals already gave is not listed twice)
    for (const n of nodes) {
      if (!n || n.unreachable) continue;
      for (const p of n.processes?.shown ?? []) {
        const was = this.seen.get(p.pid);
        if (was !== undefined && p.migrated) p.name = was.name;
        if (was !== undefined && was.node !== n.id && !this.fromArrivals.has(`${p.pid}>${n.id}`)) moved.push({ t, pid: p.pid, name: p.name, from: was.node, to: n.id });
        this.seen.set(p.pid, { node: n.id, name: p.name, t });
      }
    }
    for (const [pid, s] of this.seen) if (t - s.t > SEEN_MS) this.seen.delete(pid);
    for (const [k, at] of this.fromArrivals) if (t - at > SEEN_MS) this.fromArrivals.delete(k);
    this.migrations.push(...moved);
    if (this.migrations.length > RECENT_MIGRATIONS) this.migrations.splice(0, this.migrations.length - RECENT_MIGRATIONS);
    this.counters = counters;
    this.window.push({ t, counters });
    while (this.window.length > 0 && t - this.window[0].t > RATE_WINDOW_MS + TICK_MS) this.window.shift();
    /** @type {Sample|null} */
    let sample = null;
    if (!gap) {
      sample = {
        t,
        messages: sums.messages,
        migrations: sums.migrationsIn,
        sent: sums.sent,
        received: sums.received,
        forwarded: sums.forwarded,
        spawned: sums.spawned,
        exited: sums.exited,
        slices: sums.slices,
        processes,
        tuples,
        nodes: reachable,
      };
      this.history.push(sample);
      if (this.history.length > HISTORY) this.history.splice(0, this.history.length - HISTORY);
    } else {
      this.history.length = 0;
    }
    this.prevT = t;
    return { t, nodes, sample, migrations: moved, migrationsTotal: this.migrationsTotal, error: null };
  }
}

// ------------------------------------------------------------------ evaluation

/** @param {import('node:http').IncomingMessage} req @param {import('node:http').ServerResponse} res @param {any} host */
async function serveEval(req, res, host) {
  if (req.method !== 'POST') return sendJson(res, 405, { ok: false, error: 'POST {node, code} as application/json' });
  if (!sameOrigin(req)) return sendJson(res, 403, { ok: false, error: 'cross-origin evaluation refused' });
  const type = String(req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json') return sendJson(res, 415, { ok: false, error: 'the body must be application/json: {"node": ID, "code": TEXT}' });
  let body;
  try {
    body = JSON.parse(await readBody(req, MAX_BODY));
  } catch (e) {
    const tooLarge = e instanceof Error && e.message === 'too large';
    return sendJson(res, tooLarge ? 413 : 400, { ok: false, error: tooLarge ? `the body is over ${MAX_BODY} bytes` : `the body is not JSON: ${errorText(e)}` });
  }
  if (body === null || typeof body !== 'object' || typeof body.code !== 'string') {
    return sendJson(res, 400, { ok: false, error: 'expected {"node": ID, "code": TEXT}' });
  }
  const self = host.node?.id;
  const node = typeof body.node === 'string' && body.node !== '' ? body.node : self;
  if (!host.distribution) return sendJson(res, 503, { ok: false, error: 'this node has no evaluator' });
  const started = Date.now();
  try {
    const r = await bounded(host.distribution.evalOn(node, body.code), EVAL_BOUND_MS, 'the evaluation');
    sendJson(res, 200, { ok: Boolean(r.ok), incomplete: Boolean(r.incomplete), outputs: r.outputs ?? [], node, ms: Date.now() - started });
  } catch (e) {
    // the node refused, is unreachable, or took too long: the REPL shows why
    sendJson(res, 502, { ok: false, incomplete: false, outputs: [], error: errorText(e), node, ms: Date.now() - started });
  }
}

/** @param {import('node:http').IncomingMessage} req @param {number} max @returns {Promise<string>} */
function readBody(req, max) {
  return new Promise((resolve, reject) => {
    /** @type {Buffer[]} */
    const chunks = [];
    let size = 0;
    req.on('data', (/** @type {Buffer} */ c) => {
      size += c.length;
      if (size > max) {
        reject(new Error('too large'));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

// ------------------------------------------------------------------ request checks

/**
 * The node a process was spawned on (its pid names it: `n@<first 8 characters of the id>`).
 * @param {string} pid @param {any[]} nodes
 */
function birthNode(pid, nodes) {
  const prefix = pid.slice(pid.indexOf('@') + 1);
  return nodes.find((n) => typeof n?.id === 'string' && n.id.startsWith(prefix))?.id;
}

/**
 * Put the hops of each process in the order it made them. Nodes report their arrivals
 * without a common clock, so one tick's hops of a process come in node order; they are
 * chained instead, from the node where the process was last seen (or was spawned).
 * @param {Migration[]} moves (changed in place) @param {(pid: string) => string | undefined} lastSeenOn
 */
export function chainHops(moves, lastSeenOn) {
  /** @type {Map<string, Migration[]>} */
  const byPid = new Map();
  for (const m of moves) {
    const hops = byPid.get(m.pid);
    if (hops) hops.push(m);
    else byPid.set(m.pid, [m]);
  }
  for (const [pid, hops] of byPid) {
    if (hops.length < 2) continue;
    const ordered = [];
    const left = [...hops];
    let at = lastSeenOn(pid);
    while (left.length > 0) {
      const i = Math.max(0, left.findIndex((h) => h.from === at));
      const [h] = left.splice(i, 1);
      ordered.push(h);
      at = h.to;
    }
    // write them back into the places the pid's hops had
    let k = 0;
    for (let j = 0; j < moves.length; j++) if (moves[j].pid === pid) moves[j] = ordered[k++];
  }
}

/**
 * The Host header must be an IP address, `localhost`, or the name the daemon was told
 * to listen on: a page on another site that rebinds its DNS name to this address is
 * refused (its requests carry its own name).
 * @param {import('node:http').IncomingMessage} req @param {any} host
 */
export function hostAllowed(req, host) {
  const name = hostName(req.headers.host);
  if (name === null) return false;
  if (isIP(name) !== 0 || name === 'localhost') return true;
  const listen = String(host.opts?.host ?? '').toLowerCase();
  return listen !== '' && name === listen;
}

/** @param {string|undefined} h @returns {string|null} the host name, without port and brackets */
function hostName(h) {
  if (!h) return null;
  const m = /^\[([0-9a-fA-F:.]+)\](?::\d+)?$/.exec(h) ?? /^([^:\s]+)(?::\d+)?$/.exec(h);
  return m ? m[1].toLowerCase().replace(/\.$/, '') : null;
}

/**
 * A POST from a page must come from this origin (CSRF): a browser sends `Origin` with
 * every POST and `Sec-Fetch-Site` with every request, and a page cannot forge either.
 * Requests with neither (curl, other programs) are allowed: they are not a browser
 * acting for another site. (The JSON content type that /api/eval requires is the
 * second lock: a cross-origin page cannot send it without a CORS preflight, which
 * this server never grants.)
 * @param {import('node:http').IncomingMessage} req
 */
export function sameOrigin(req) {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return false;
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  try {
    return new URL(origin).host === req.headers.host;
  } catch {
    return false;
  }
}

// ------------------------------------------------------------------ helpers

/** @param {import('node:http').ServerResponse} res @param {number} status @param {any} body */
function sendJson(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
  res.end(JSON.stringify(body));
}

/** @param {import('node:http').ServerResponse} res @param {number} status @param {string} text */
function sendText(res, status, text) {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' });
  res.end(text);
}

/**
 * @template T
 * @param {Promise<T>} p @param {number} ms @param {string} what
 * @returns {Promise<T>}
 */
function bounded(p, ms, what) {
  /** @type {NodeJS.Timeout|undefined} */
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
    timer.unref();
  });
  return /** @type {Promise<T>} */ (Promise.race([p, timeout]).finally(() => clearTimeout(timer)));
}

/** @param {unknown} e */
function errorText(e) {
  return e instanceof Error ? e.message : String(e);
}

// start bundling as soon as the daemon loads this module (web.js loads it on the first
// request for / or /api/): the page is usually ready before anyone asks for it
buildPage().catch(() => {});
