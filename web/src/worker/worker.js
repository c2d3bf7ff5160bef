// @ts-check
/**
 * The compute worker: a Termite node in a (module) Web Worker. The page that starts it
 * (page/worker-page.js) only draws what this reports; every process, every message and
 * the whole mesh run here, so a busy node never makes the page unresponsive.
 *
 * Start-up, in order of need (docs/browser.md, "A tab's life"):
 *   1. the core's .wasm is fetched and compiled (streaming) while
 *   2. the Scheme runtime and the Termite library load, and the tab's identity is taken
 *      from IndexedDB (identity-slot.js);
 *   3. a runtime node (kind 'tab') and its distribution layer (code on demand with an
 *      IndexedDB code cache, migration, remote spawn) are set up *before* the mesh
 *      connects, so the first request a peer sends finds its handler;
 *   4. the mesh node joins the daemon over WebSocket with the token the daemon put in
 *      the page; then WebRTC data channels are opened with the daemon and other tabs
 *      (upgrader.js).
 *
 * Messages from the page: {type: 'start', config} once, {type: 'stop'}, and the RTC
 * proxy's replies (rtc-proxy.js). To the page: {type: 'status', ...} (coalesced, at
 * most every STATUS_MS), {type: 'log', lines}, {type: 'state', state, detail}.
 */
import { installRtcProxy, handleRtcMessage } from './rtc-proxy.js';
import { loadCore } from '@termite/core';
import { createNode, Distribution, NodeEvaluator, loadTermiteLibrary, libraryStoreIn } from '@termite/runtime';
import { createMeshNode, createLogger, fromBase64url, verifySignature, nodeIdFromPublicKey } from '@termite/mesh';
import { supplyPrecompiledRuntime, precompiledStats } from '@termite/scheme/internal';
import { indexedDbCodeCache } from './code-cache.js';
import { tabIdentity } from './identity-slot.js';
import { Upgrader } from './upgrader.js';

/**
 * What the page passes (from the configuration the daemon embedded in it).
 * @typedef {object} WorkerConfig
 * @property {string} token the mesh token
 * @property {string} join ws:// URL of the daemon to join
 * @property {string | null} daemonId the id of the daemon that served the page (trusted for EVAL)
 * @property {string[]} [trust] library publishers whose libraries this tab installs (its daemon's)
 * @property {boolean} webrtc open WebRTC data channels (default true)
 * @property {'loopback' | 'loopback-rewrite' | 'any'} candidatePolicy
 * @property {string[]} [iceServers] STUN/TURN URLs (TURN credentials as `turn:USER:PASSWORD@HOST:PORT`)
 * @property {'all' | 'relay'} [iceTransportPolicy] 'relay': TURN relay candidates only (default 'all')
 * @property {number} maxTabLinks WebRTC links to other tabs this tab opens at most
 * @property {boolean} freshIdentity do not use a stored identity
 * @property {number} [peerTimeoutMs]
 */

const STATUS_MS = 200;
const LOG_BATCH_MS = 50;
/** Errors that mean "you may not join" rather than "try again later". */
const TRANSIENT = new Set(['handshake timeout', 'connection closed', 'node stopping']);

const scope = /** @type {any} */ (self);
installRtcProxy(scope);

/** @type {any} */
let state = { state: 'starting', detail: 'loading the runtime' };
/** @type {any} */ let mesh = null;
/** @type {any} */ let node = null;
/** @type {any} */ let distribution = null;
/** @type {Upgrader | null} */ let upgrader = null;
/** @type {WorkerConfig | null} */ let config = null;
/** @type {string | null} */ let daemonId = null;
let stopped = false;
/** @type {string[]} */ let logQueue = [];
/** @type {any} */ let logTimer = null;
/** @type {any} */ let statusTimer = null;
const timing = { /** @type {Record<string, number>} */ marks: {} };

/** @param {string} name */
const mark = (name) => {
  timing.marks[name] = Math.round((performance.timeOrigin + performance.now()) * 10) / 10;
};
mark('worker-start');

scope.onmessage = (/** @type {MessageEvent} */ ev) => {
  const m = ev.data;
  if (handleRtcMessage(m)) return;
  if (!m || typeof m.type !== 'string') return;
  if (m.type === 'start' && config === null) {
    config = m.config;
    start(/** @type {WorkerConfig} */ (config)).catch((e) => {
      setState('failed', e instanceof Error ? e.message : String(e));
      log(`start failed: ${e instanceof Error ? e.stack ?? e.message : e}`);
    });
  } else if (m.type === 'stop') stop('the page asked');
};

/** @param {string} line */
function log(line) {
  logQueue.push(`${new Date().toISOString().slice(11, 23)} ${line}`);
  if (logQueue.length > 500) logQueue = logQueue.slice(-250);
  if (logTimer === null) {
    logTimer = setTimeout(() => {
      logTimer = null;
      const lines = logQueue;
      logQueue = [];
      scope.postMessage({ type: 'log', lines });
    }, LOG_BATCH_MS);
  }
}

/** @param {string} s @param {string} detail */
function setState(s, detail) {
  state = { state: s, detail };
  // the node's status goes first, not coalesced: a page that shows the new state (say
  // 'Joined') then shows what goes with it (the daemon's id), never a status from before
  scope.postMessage({ type: 'status', ...snapshot() });
  scope.postMessage({ type: 'state', state: s, detail });
}

/** Post the node's status soon (coalesced). */
function status() {
  if (statusTimer !== null) return;
  statusTimer = setTimeout(() => {
    statusTimer = null;
    scope.postMessage({ type: 'status', ...snapshot() });
  }, STATUS_MS);
}

function snapshot() {
  const peers = mesh ? mesh.peers() : [];
  const routes = mesh ? mesh.routes() : [];
  const snap = node ? node.snapshot(100) : null;
  return {
    id: mesh?.id ?? null,
    daemonId,
    ...state,
    ...(state.state === 'joined' ? { detail: joinedText(peers) } : {}),
    links: peers.map((/** @type {any} */ p) => ({
      id: p.id,
      kind: p.id === daemonId ? 'daemon' : p.listenUrl ? 'node' : 'tab',
      transport: p.transport,
      transports: p.links.map((/** @type {any} */ l) => l.transport),
      rttMs: p.rttMs,
      address: p.listenUrl,
    })),
    routes: routes.map((/** @type {any} */ r) => ({ id: r.id, via: r.via, kind: r.url ? 'node' : 'tab' })),
    processes: snap ? snap.processes : { live: 0, shown: [] },
    counters: snap ? snap.counters : {},
    spaces: snap ? snap.spaces : [],
    load: snap ? snap.load : 0,
    timing: timing.marks,
    library: { precompiled: precompiledStats.used, compiled: precompiledStats.compiled },
  };
}

/** @param {any[]} peers */
function joinedText(peers) {
  const d = peers.find((p) => p.id === daemonId);
  const tabs = peers.filter((p) => p.listenUrl === null).length;
  return `in the mesh through daemon ${String(daemonId).slice(0, 12)} over ${d ? d.transport : 'a route'}${tabs ? `; direct links to ${tabs} tab${tabs > 1 ? 's' : ''}` : ''}`;
}

/** @param {WorkerConfig} cfg */
async function start(cfg) {
  // 1. the .wasm downloads and compiles while the Scheme runtime loads
  const core = loadCore();
  const ident = tabIdentity({ fresh: cfg.freshIdentity });
  await Promise.resolve();
  // the runtime library as the daemon compiled it (build.js puts it in this bundle)
  // @ts-ignore -- a constant esbuild's `define` substitutes; absent outside the bundle
  if (typeof TERMITE_PRECOMPILED_RUNTIME === 'string') supplyPrecompiledRuntime(fromBase64url(TERMITE_PRECOMPILED_RUNTIME)); // eslint-disable-line no-undef
  loadTermiteLibrary();
  mark('runtime-loaded');
  log(`runtime library: ${precompiledStats.used} units precompiled by the daemon, ${precompiledStats.compiled} compiled here${precompiledStats.rejected.length ? ` (${precompiledStats.rejected.join('; ')})` : ''}`);
  const [c, { identity, slot }] = await Promise.all([core, ident]);
  mark('core-and-identity');
  log(`node ${identity.id} (${slot ? `identity ${slot} from IndexedDB` : 'fresh identity'})`);

  // 2. the runtime node and its distribution layer, ready before any peer can ask
  node = await createNode({
    id: identity.id,
    kind: 'tab',
    core: c,
    stdout: stdoutLines(),
    log: (s) => log(s),
  });
  mesh = createMeshNode({
    identity,
    token: cfg.token,
    webrtc: cfg.webrtc ? { candidatePolicy: cfg.candidatePolicy, iceServers: cfg.iceServers ?? [], iceTransportPolicy: cfg.iceTransportPolicy ?? 'all' } : false,
    peerTimeoutMs: cfg.peerTimeoutMs,
    logger: meshLogger(),
  });
  /** @type {NodeEvaluator | null} */
  let evaluator = null;
  const codeCache = indexedDbCodeCache({ log });
  distribution = new Distribution(node, mesh, {
    address: null,
    codeCache,
    log,
    // the dashboard's REPL may evaluate here, on behalf of the daemon that served this page only
    evaluate: (text) => (evaluator ??= new NodeEvaluator(node, {})).evalText(text, { timeoutMs: 10000 }),
    evalPeers: new Set(cfg.daemonId ? [cfg.daemonId] : []),
    // pids and spaces of other nodes this tab hands another peer are vouched for to their nodes
    vouchWhenPassingOn: true,
    // versioned libraries: installed from the publishers the daemon trusts, records kept in IndexedDB
    libraries: {
      trusted: cfg.trust ?? [],
      verify: (pk, sig, data) => verifySignature(fromBase64url(pk), fromBase64url(sig), data),
      publisherIdOf: (pk) => nodeIdFromPublicKey(fromBase64url(pk)),
      store: libraryStoreIn(codeCache),
    },
  });
  scope.termite = { node, mesh, distribution, codeCache };
  mark('node-ready');

  // 3. the mesh
  upgrader = new Upgrader(mesh, { maxTabLinks: cfg.maxTabLinks, log, enabled: cfg.webrtc });
  watchMesh(cfg);
  await mesh.start();
  setInterval(status, 1000);
  await join(cfg, 0);
}

/**
 * The stdout of the node's processes, as log lines (a partial line waits for its end,
 * up to 4 KB).
 * @returns {(s: string) => void}
 */
function stdoutLines() {
  let partial = '';
  return (s) => {
    partial += s;
    const lines = partial.split('\n');
    partial = /** @type {string} */ (lines.pop());
    for (const l of lines) log(`stdout: ${l}`);
    if (partial.length > 4096) {
      log(`stdout: ${partial}`);
      partial = '';
    }
  };
}

/** The mesh's log records, above debug, as log lines. */
function meshLogger() {
  return createLogger('termite:mesh', {
    sink: (/** @type {any} */ rec) => {
      if (rec.level === 'debug' || rec.level === 'trace') return;
      log(`${rec.name ?? 'mesh'} ${rec.level}: ${rec.message}${rec.fields ? ' ' + JSON.stringify(rec.fields) : ''}`);
    },
  });
}

/**
 * What the mesh's events change: the upgrader looks again, the page gets a status, and
 * losing the daemon starts rejoining it.
 * @param {WorkerConfig} cfg
 */
function watchMesh(cfg) {
  for (const ev of ['peer:up', 'link:up', 'link:down', 'routes']) {
    mesh.on(ev, () => {
      upgrader?.poke();
      status();
    });
  }
  mesh.on('peer:down', (/** @type {any} */ e) => {
    upgrader?.forget(e.id);
    status();
    if (e.id === daemonId && !stopped) {
      log(`lost the daemon: ${e.reason}`);
      void join(cfg, 1000);
    }
  });
  mesh.on('peer:refused', (/** @type {any} */ e) => log(`refused (${e.byPeer ? 'by the peer' : 'here'}): ${e.message}`));
}

/**
 * Join the daemon; on a transient failure try again (1 s, doubling, at most 10 s apart);
 * on a refusal say why and stop trying.
 * @param {WorkerConfig} cfg @param {number} firstDelay
 */
async function join(cfg, firstDelay) {
  let delay = firstDelay;
  for (let attempt = 1; !stopped; attempt++) {
    if (delay > 0) {
      setState('disconnected', `reconnecting to ${cfg.join} in ${Math.round(delay / 100) / 10} s`);
      await new Promise((r) => setTimeout(r, delay));
      if (stopped) return;
    }
    setState('joining', `connecting to ${cfg.join}`);
    try {
      const peer = await mesh.connect(cfg.join, { timeoutMs: 10000 });
      daemonId = peer.id;
      mark('joined');
      if (cfg.daemonId && peer.id !== cfg.daemonId) log(`warning: the node at ${cfg.join} is ${peer.id}, not ${cfg.daemonId} which served this page; it may not evaluate code here`);
      setState('joined', joinedText(mesh.peers()));
      upgrader?.poke();
      return;
    } catch (e) {
      const err = /** @type {any} */ (e);
      if (err?.name === 'AdmissionError' && !TRANSIENT.has(err.reason)) {
        setState('refused', `${refusalText(err.reason)} (${err.message})`);
        log(`admission refused: ${err.message}`);
        return;
      }
      log(`cannot join ${cfg.join}: ${err?.message ?? err}`);
      delay = Math.min(Math.max(1000, delay * 2), 10000);
    }
  }
}

/** @param {string} reason */
function refusalText(reason) {
  switch (reason) {
    case 'bad token':
      return 'Refused by the mesh: wrong token — this page\'s mesh token is not the token of the daemon it joins';
    case 'bad signature':
    case 'node id does not match key':
      return `Refused by the mesh: this tab's identity could not be proven (${reason})`;
    case 'protocol version':
      return 'Refused by the mesh: this page and the daemon are of different releases (another protocol version) — reload the page from the daemon';
    default:
      return `Refused by the mesh: ${reason}`;
  }
}

/** @param {string} why */
function stop(why) {
  if (stopped) return;
  stopped = true;
  upgrader?.stop();
  node?.stop();
  setState('stopped', why);
  void mesh?.stop();
}
