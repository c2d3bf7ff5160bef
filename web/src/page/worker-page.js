// @ts-check
/**
 * The worker page's script: start the compute worker (worker/worker.js) with the
 * configuration the daemon embedded in the page, host its WebRTC peer connections
 * (rtc-host.js), and draw what it reports — the node's id, its links and their
 * transport, its processes, its log — at most a few times a second. Nothing else
 * runs on this thread, so the page stays responsive however busy the node is.
 *
 * The configuration (a JSON script element, id `termite-config`): {token, join,
 * daemonId, workerUrl, trust, iceServers, iceTransportPolicy}; the daemon puts in the
 * STUN/TURN servers it was started with (TURN with credentials of limited life, made
 * for this page). The URL may override some of it for experiments and tests:
 * `?join=ws://HOST:PORT` (join another daemon), `?webrtc=0` (stay on WebSocket),
 * `?rtc=any|loopback|loopback-rewrite` (ICE candidate policy), `?tabLinks=N`,
 * `?fresh=1` (a new identity, not the stored one), `?icePolicy=relay|all` (gather TURN
 * relay candidates only, or all), `#token=T` (another mesh token;
 * in the fragment so that it is never sent to a server) and `#ice=URL,URL` (STUN/TURN
 * servers, `turn:USER:PASSWORD@HOST:PORT` with credentials; in the fragment too).
 */
import { hostRtc } from './rtc-host.js';

/** @param {string} id */
const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

const embedded = JSON.parse(/** @type {HTMLElement} */ (document.getElementById('termite-config')).textContent ?? '{}');
const params = new URLSearchParams(location.search);
const fragment = new URLSearchParams(location.hash.slice(1));
const loopback = /^(127\.\d+\.\d+\.\d+|localhost|\[::1\])$/.test(location.hostname);

const config = {
  token: fragment.get('token') ?? embedded.token,
  join: params.get('join') ?? embedded.join ?? `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/`,
  daemonId: params.get('join') ? null : embedded.daemonId ?? null,
  trust: params.get('join') ? [] : embedded.trust ?? [],
  webrtc: params.get('webrtc') !== '0' && typeof RTCPeerConnection === 'function',
  candidatePolicy: params.get('rtc') ?? (loopback ? 'loopback-rewrite' : 'any'),
  iceServers: fragment.has('ice') ? (fragment.get('ice') ?? '').split(',').filter(Boolean) : iceUrls(embedded.iceServers),
  iceTransportPolicy: icePolicy(params.get('icePolicy') ?? embedded.iceTransportPolicy),
  maxTabLinks: Math.max(0, Math.min(64, Number(params.get('tabLinks') ?? 8) || 0)),
  freshIdentity: params.get('fresh') === '1',
  peerTimeoutMs: params.has('peerTimeout') ? Number(params.get('peerTimeout')) : undefined,
};

/** The daemon's STUN/TURN URLs (strings only). @param {unknown} list @returns {string[]} */
function iceUrls(list) {
  return Array.isArray(list) ? list.filter((u) => typeof u === 'string' && /^(stun|turns?):/.test(u)) : [];
}

/** @param {unknown} p @returns {'all' | 'relay'} */
function icePolicy(p) {
  return p === 'relay' ? 'relay' : 'all';
}

const worker = new Worker(embedded.workerUrl ?? '/assets/js/worker.js', { type: 'module', name: 'termite-node' });
const rtc = hostRtc(worker);

/** What the worker last reported (also read by tests and benchmarks). */
const view = {
  /** @type {any} */ status: null,
  state: 'starting',
  detail: 'loading the runtime',
  /** @type {string[]} */ log: [],
  pageStart: performance.timeOrigin,
};
/** @type {any} */ (window).termite = {
  view,
  worker,
  config: { ...config, token: undefined, iceServers: undefined, iceServerCount: config.iceServers.length },
  /** the candidate types of the ICE pairs this page's peer connections use (tests, diagnosis) */
  selectedPairs: () => rtc.selectedPairs(),
};

worker.onmessage = (ev) => {
  const m = ev.data;
  if (rtc.handle(m)) return;
  switch (m?.type) {
    case 'status':
      view.status = m;
      view.state = m.state;
      view.detail = m.detail;
      schedule();
      return;
    case 'state':
      view.state = m.state;
      view.detail = m.detail;
      schedule();
      return;
    case 'log':
      view.log.push(...m.lines);
      if (view.log.length > 400) view.log.splice(0, view.log.length - 300);
      schedule();
      return;
    default:
      (/** @type {any} */ (window)).termite.onMessage?.(m);
  }
};
worker.onerror = (e) => {
  view.state = 'failed';
  view.detail = `the worker failed: ${e.message}`;
  schedule();
};
worker.postMessage({ type: 'start', config });
window.addEventListener('pagehide', () => {
  // tell the peers at once (SCTP abort) rather than by a heartbeat timeout
  rtc.closeAll();
  worker.postMessage({ type: 'stop' });
});

let drawPending = false;
function schedule() {
  if (drawPending) return;
  drawPending = true;
  requestAnimationFrame(() => {
    drawPending = false;
    draw();
  });
  // requestAnimationFrame does not run in a hidden tab: draw anyway, rarely
  setTimeout(() => {
    if (drawPending) {
      drawPending = false;
      draw();
    }
  }, 500);
}

const STATE_TEXT = /** @type {Record<string, string>} */ ({
  starting: 'Starting',
  joining: 'Joining',
  joined: 'Joined',
  disconnected: 'Disconnected',
  refused: 'Refused',
  failed: 'Failed',
  stopped: 'Stopped',
});

function draw() {
  const s = view.status;
  const st = $('state');
  st.dataset.state = view.state;
  st.textContent = STATE_TEXT[view.state] ?? view.state;
  $('detail').textContent = view.detail ?? '';
  const refusal = $('refusal');
  refusal.hidden = view.state !== 'refused';
  if (view.state === 'refused') refusal.textContent = view.detail;
  if (s) {
    $('node-id').textContent = s.id ?? '…';
    $('daemon-id').textContent = s.daemonId ?? '—';
    drawLinks(s);
    drawProcesses(s);
    $('counters').textContent = countersText(s);
  }
  const log = $('log');
  const atEnd = log.scrollTop + log.clientHeight >= log.scrollHeight - 4;
  log.textContent = view.log.slice(-200).join('\n');
  if (atEnd) log.scrollTop = log.scrollHeight;
}

/** @param {any} s */
function drawLinks(s) {
  const body = /** @type {HTMLTableSectionElement} */ ($('links').querySelector('tbody'));
  const rows = [];
  for (const l of s.links) {
    const tr = document.createElement('tr');
    tr.dataset.peer = l.id;
    tr.dataset.kind = l.kind;
    tr.dataset.transport = l.transport;
    tr.append(
      cell(l.kind),
      cell(l.id, 'mono'),
      cell(l.transports.join(' + '), `transport ${l.transport}`),
      cell(l.rttMs == null ? '' : `${l.rttMs} ms`),
    );
    rows.push(tr);
  }
  for (const r of s.routes) {
    const tr = document.createElement('tr');
    tr.dataset.peer = r.id;
    tr.dataset.kind = r.kind;
    tr.dataset.transport = 'routed';
    tr.append(cell(r.kind), cell(r.id, 'mono'), cell(`via ${r.via.map((/** @type {string} */ v) => v.slice(0, 8)).join(', ')}`, 'transport routed'), cell(''));
    rows.push(tr);
  }
  if (rows.length === 0) {
    const tr = document.createElement('tr');
    const td = cell('no links yet', 'empty');
    td.colSpan = 4;
    tr.append(td);
    rows.push(tr);
  }
  body.replaceChildren(...rows);
}

/** @param {any} s */
function drawProcesses(s) {
  const body = /** @type {HTMLTableSectionElement} */ ($('processes').querySelector('tbody'));
  const rows = s.processes.shown.map((/** @type {any} */ p) => {
    const tr = document.createElement('tr');
    tr.dataset.pid = p.pid;
    tr.append(cell(p.pid, 'mono'), cell(p.name), cell(p.state), cell(p.migrated ? 'migrated here' : ''));
    return tr;
  });
  if (rows.length === 0) {
    const tr = document.createElement('tr');
    const td = cell('no processes', 'empty');
    td.colSpan = 4;
    tr.append(td);
    rows.push(tr);
  }
  body.replaceChildren(...rows);
  $('process-count').textContent = String(s.processes.live ?? 0);
}

/** @param {any} s */
function countersText(s) {
  const c = s.counters ?? {};
  const parts = [
    `load ${(s.load * 100).toFixed(0)}%`,
    `messages ${c.messages ?? 0}`,
    `frames in ${c.received ?? 0} / out ${c.sent ?? 0}`,
    `migrations in ${c.migrationsIn ?? 0} / out ${c.migrationsOut ?? 0}`,
    `code fetched ${c.codeFetched ?? 0}`,
  ];
  return parts.join(' · ');
}

/** @param {string} text @param {string} [cls] */
function cell(text, cls) {
  const td = document.createElement('td');
  td.textContent = text;
  if (cls) td.className = cls;
  return td;
}
