// @ts-check
/**
 * The dashboard page: connects to the daemon's event stream (/api/events; polling
 * /api/state where EventSource is missing), keeps a Store, and renders the graph (the
 * physical mesh or the logical network, by the view switch), the rate charts, the side
 * panels and the REPL from it.
 */
import './style.css';
import { Store } from './store.js';
import { MeshGraph } from './graph.js';
import { LogicalGraph } from './logical-graph.js';
import { Chart } from './chart.js';
import { Repl } from './repl.js';
import { renderNodes, renderSpaces, renderMigrations, migKey } from './panels.js';
import { compact, nodeName } from './format.js';
import { onKillChange } from './kill.js';
import { onApproveChange } from './library-approve.js';

const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));

const store = new Store();
/** @type {string|null} */
let selected = null;

const graph = new MeshGraph(/** @type {any} */ ($('graph')), $('tooltip'), { onSelect: select });
const logical = new LogicalGraph(/** @type {any} */ ($('lgraph')), $('lgraph-empty'));

/**
 * The graph panel's view: the physical mesh or the logical network (kept in localStorage).
 * @param {'physical'|'logical'} view
 */
function setView(view) {
  const panel = /** @type {HTMLElement} */ ($('graph').closest('.graph-panel'));
  panel.dataset.view = view;
  $('graph').toggleAttribute('hidden', view !== 'physical');
  $('view-physical').setAttribute('aria-pressed', String(view === 'physical'));
  $('view-logical').setAttribute('aria-pressed', String(view === 'logical'));
  logical.show(view === 'logical');
  try {
    localStorage.setItem('termite-dashboard-view', view);
  } catch {
    // storage refused (private mode): the view is not remembered
  }
}
$('view-physical').addEventListener('click', () => setView('physical'));
$('view-logical').addEventListener('click', () => setView('logical'));
setView(localStorageView());

/** @returns {'physical'|'logical'} */
function localStorageView() {
  try {
    return localStorage.getItem('termite-dashboard-view') === 'logical' ? 'logical' : 'physical';
  } catch {
    return 'physical';
  }
}

const chartsRoot = $('charts');
const charts = [
  new Chart(chartsRoot, { key: 'messages', title: 'Messages', unit: '/s', color: '#6ea8fe' }),
  new Chart(chartsRoot, { key: 'migrations', title: 'Migrations', unit: '/s', color: '#ff6fb5' }),
  new Chart(chartsRoot, { key: 'sent', title: 'Remote sends', unit: '/s', color: '#3ddc97' }),
  new Chart(chartsRoot, { key: 'processes', title: 'Processes', unit: 'live', color: '#f5b443' }),
];

const repl = new Repl(
  {
    out: $('repl-out'),
    form: /** @type {HTMLFormElement} */ ($('repl-form')),
    input: /** @type {HTMLTextAreaElement} */ ($('repl-input')),
    select: /** @type {HTMLSelectElement} */ ($('repl-node')),
    clear: $('repl-clear'),
    prompt: $('repl-prompt'),
  },
  { onTarget: (id) => select(id, { fromRepl: true }) },
);

$('open-worker').addEventListener('click', () => {
  window.open('/worker', '_blank', 'noopener');
});

/**
 * Choose a node: the graph highlights it, its card expands, the REPL targets it.
 * @param {string} id @param {{fromRepl?: boolean}} [how]
 */
function select(id, how = {}) {
  const n = store.nodes.get(id);
  if (!n || n.ghost) return;
  selected = id;
  graph.select(id);
  if (!how.fromRepl) repl.choose(id);
  renderSide(new Set());
  document.querySelector(`.node-card[data-node-id="${CSS.escape(id)}"]`)?.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
}

onKillChange(() => renderNodes($('nodes'), store, selected, select));
onApproveChange(() => renderNodes($('nodes'), store, selected, select));

/** @param {Set<string>} fresh */
function renderSide(fresh) {
  renderNodes($('nodes'), store, selected, select);
  renderSpaces($('spaces'), $('space-count'), store);
  renderMigrations($('migrations'), $('mig-count'), store, fresh);
}

/** @param {any[]} fresh migrations this update brought */
function render(fresh) {
  if (selected === null || !store.nodes.has(selected)) selected = store.self;
  repl.setNodes(store);
  graph.update(store);
  graph.select(selected);
  for (const m of fresh) graph.migrate(m);
  logical.update(store);
  renderSide(new Set(fresh.map(migKey)));
  const history = store.history;
  const span = history.length > 1 ? history[history.length - 1].t - history[0].t : 0;
  const windowMs = Math.max(30000, Math.min(120000, span));
  for (const c of charts) c.update(history, windowMs);
  const t = store.totals();
  $('t-nodes').textContent = String(t.nodes);
  $('t-processes').textContent = compact(t.processes);
  $('t-tuples').textContent = compact(t.tuples);
  $('t-migrations').textContent = compact(t.migrations);
  $('proc-count').textContent = `${compact(t.processes)} on ${t.nodes} node${t.nodes === 1 ? '' : 's'}`;
  const self = store.self ? store.nodes.get(store.self) : null;
  $('self-label').textContent = self ? `dashboard of daemon ${nodeName(self)}` : 'dashboard';
  document.body.dataset.self = store.self ?? '';
  $('graph-hint').hidden = store.nodes.size !== 1;
  $('join-hint').textContent = `--join ws://${location.host} --token …`;
}

// ---------------------------------------------------------------- connection

let lastData = 0;
/** @param {'live'|'stale'|'offline'|'connecting'} state @param {string} [text] */
function status(state, text) {
  const s = $('status');
  if (s.dataset.state === state && !text) return;
  s.dataset.state = state;
  $('status-text').textContent = text ?? state;
}

/** @param {any} d */
function onHello(d) {
  lastData = Date.now();
  store.hello(d);
  status(d.error ? 'stale' : 'live', d.error ? 'mesh slow' : 'live');
  render([]);
}

/** @param {any} d */
function onTick(d) {
  lastData = Date.now();
  const fresh = store.tick(d);
  status(d.error ? 'stale' : 'live', d.error ? 'mesh slow' : 'live');
  render(fresh);
}

function connect() {
  if (typeof EventSource === 'undefined') return poll();
  const es = new EventSource('/api/events');
  es.addEventListener('hello', (e) => onHello(JSON.parse(/** @type {MessageEvent} */ (e).data)));
  es.addEventListener('tick', (e) => onTick(JSON.parse(/** @type {MessageEvent} */ (e).data)));
  es.addEventListener('error', () => status('offline', 'reconnecting…'));
}

async function poll() {
  let first = true;
  for (;;) {
    try {
      const res = await fetch('/api/state', { cache: 'no-store' });
      const d = await res.json();
      if (first) onHello(d);
      else onTick({ ...d, migrations: d.migrations ?? [] });
      first = false;
    } catch {
      status('offline', 'reconnecting…');
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

setInterval(() => {
  if (lastData !== 0 && Date.now() - lastData > 2500 && $('status').dataset.state === 'live') status('stale', 'no data');
}, 1000);

connect();
