// @ts-check
/**
 * The side panels: processes per node (the ones that just arrived highlighted and
 * listed first, each with its kill button, kill.js, and the node's versioned libraries with
 * the processes using them and the publishers waiting for approval, library-approve.js), tuple
 * spaces with their kind (and a replica's home), size and rate of tuples in and out, and
 * the stream of recent migrations.
 */
import { el, nodeName, compact, clock, shortId } from './format.js';
import { killButton } from './kill.js';
import { approveButton } from './library-approve.js';

const ROWS = 7;
const ROWS_SELECTED = 14;

const STATE_LABEL = /** @type {Record<string, string>} */ ({
  ready: 'ready',
  running: 'running',
  'waiting-message': 'receive',
  'waiting-tuple': 'tuple',
  'waiting-timer': 'timer',
});

/**
 * @param {HTMLElement} root
 * @param {import('./store.js').Store} store
 * @param {string|null} selected
 * @param {(id: string) => void} onSelect
 */
export function renderNodes(root, store, selected, onSelect) {
  const now = Date.now();
  /** @type {Map<string, HTMLElement>} */
  const old = new Map();
  for (const c of /** @type {HTMLElement[]} */ ([...root.children])) if (c.dataset.nodeId) old.set(c.dataset.nodeId, c);
  /** @type {HTMLElement[]} */
  const cards = [];
  for (const n of store.ordered()) {
    if (n.ghost) continue;
    let card = old.get(n.id);
    if (!card) {
      card = el('div', { class: 'node-card', dataset: { nodeId: n.id } });
      const id = n.id;
      card.addEventListener('click', (e) => {
        if (!(/** @type {HTMLElement} */ (e.target).closest('.proc'))) onSelect(id);
      });
    }
    card.dataset.kind = n.kind ?? 'daemon';
    card.classList.toggle('selected', n.id === selected);
    card.classList.toggle('unreachable', Boolean(n.unreachable));
    card.replaceChildren(...nodeCard(n, store, n.id === selected, now));
    cards.push(card);
  }
  root.replaceChildren(...cards);
}

/** @param {any} n @param {import('./store.js').Store} store @param {boolean} selected @param {number} now */
function nodeCard(n, store, selected, now) {
  const kind = n.kind === 'tab' ? 'tab' : 'daemon';
  const head = el(
    'div',
    { class: 'nc-head' },
    el('span', { class: `kind-badge ${kind}`, text: kind === 'tab' ? 'TAB' : 'DAEMON' }),
    el('span', { class: 'nc-name', text: kind === 'tab' ? shortId(n.id) : nodeName(n), title: n.id }),
    n.id === store.self ? el('span', { class: 'nc-self', text: 'this daemon' }) : null,
    el('span', { class: 'grow' }),
    n.unreachable ? el('span', { class: 'nc-stat warn', text: 'unreachable' }) : el('span', { class: 'nc-stat', text: `${n.processes?.live ?? 0} proc` }),
  );
  if (n.unreachable) return [head];
  const load = Math.max(0, Math.min(1, n.load ?? 0));
  const meter = el(
    'div',
    { class: 'nc-meta' },
    el('span', { class: 'meter', title: `busy ${Math.round(load * 100)}% of the time` }, el('span', { class: 'meter-fill' })),
    el('span', { text: `${Math.round(load * 100)}% busy` }),
    el('span', { text: `${compact(n.rates?.messages ?? 0)} msg/s` }),
    el('span', { text: `↓${n.counters?.migrationsIn ?? 0} ↑${n.counters?.migrationsOut ?? 0}`, title: 'processes that arrived here ↓ and left ↑' }),
  );
  /** @type {HTMLElement} */ (meter.querySelector('.meter-fill')).style.width = `${(load * 100).toFixed(1)}%`;
  const shown = /** @type {any[]} */ ([...(n.processes?.shown ?? [])]);
  // arrivals first, then migrated processes, then by pid
  const rank = (/** @type {any} */ p) => (store.arrivedHere(p.pid, n.id, now) ? 0 : p.migrated ? 1 : 2);
  shown.sort((a, b) => rank(a) - rank(b));
  const limit = selected ? ROWS_SELECTED : ROWS;
  const list = el('ul', { class: 'procs' });
  for (const p of shown.slice(0, limit)) list.append(procRow(p, n, store, now));
  const hidden = (n.processes?.live ?? shown.length) - Math.min(limit, shown.length);
  const parts = [head, meter];
  if (shown.length === 0) parts.push(el('div', { class: 'nc-empty', text: 'no processes' }));
  else parts.push(list);
  if (hidden > 0) parts.push(el('div', { class: 'nc-more', text: `+ ${hidden} more` }));
  const deaths = /** @type {any[]} */ (n.deaths ?? []);
  if (deaths.length > 0) parts.push(deathList(deaths));
  const libraries = /** @type {any[]} */ (n.libraries ?? []);
  if (libraries.length > 0) parts.push(libraryList(libraries));
  const approvals = /** @type {any[]} */ (n.libraryApprovals ?? []);
  if (approvals.length > 0) parts.push(approvalList(approvals, String(n.id)));
  return parts;
}

/**
 * The versioned libraries a node published or installed: name, version, where it came
 * from (its publisher, and the node it was fetched from), and the processes using it.
 * @param {any[]} libraries {name, version, origin, publisher, from, users, pids}
 */
function libraryList(libraries) {
  const items = libraries.map((l) => el(
    'li',
    { class: 'lib', title: `publisher ${l.publisher}${l.from ? `, fetched from ${l.from}` : ''}${l.users > 0 ? `; used by ${(l.pids ?? []).join(' ')}${l.users > (l.pids ?? []).length ? ' …' : ''}` : ''}` },
    el('span', { class: 'lib-name', text: `${l.name}@${l.version}` }),
    el('span', { class: 'lib-origin', text: l.origin === 'published' ? 'published here' : l.origin === 'store' ? 'installed (store)' : `installed from ${shortId(String(l.from ?? ''))}` }),
    el('span', { class: 'lib-users', text: l.users > 0 ? `${l.users} ${l.users === 1 ? 'process' : 'processes'}: ${(l.pids ?? []).slice(0, 3).join(' ')}${l.users > 3 ? ' …' : ''}` : 'unused' }),
  ));
  return el('div', { class: 'nc-libs' }, el('div', { class: 'nc-libs-head', text: `${libraries.length} ${libraries.length === 1 ? 'library' : 'libraries'}` }), el('ul', { class: 'libs' }, ...items));
}

/**
 * The publishers this daemon does not trust whose libraries were asked for, each with
 * its approve button (library-approve.js).
 * @param {any[]} approvals {publisher, libraries, since, waiting} @param {string} nodeId
 */
function approvalList(approvals, nodeId) {
  const items = approvals.map((a) => el(
    'li',
    { class: 'lib-approval', title: `publisher ${a.publisher} asked for ${(a.libraries ?? []).join(' ')}` },
    el('span', { class: 'lib-name', text: (a.libraries ?? []).join(' ') }),
    el('span', { class: 'lib-origin', text: `by ${shortId(String(a.publisher))}${a.waiting > 0 ? `, ${a.waiting} waiting` : ', refused'}` }),
    ...approveButton(String(a.publisher), nodeId),
  ));
  return el('div', { class: 'nc-libs' }, el('div', { class: 'nc-libs-head', text: 'libraries waiting for approval' }), el('ul', { class: 'libs' }, ...items));
}

/**
 * The last processes that died of an uncaught error on a node (no one linked to them),
 * newest first: the first line of each (what failed, with its values), and its Scheme
 * frames when opened.
 * @param {any[]} deaths {pid, at, text} as the node logged them
 */
function deathList(deaths) {
  const items = [...deaths].reverse().map((d) => {
    const [first, ...frames] = String(d.text).split('\n');
    return el('details', { class: 'death' }, el('summary', { text: `${clock(d.at)} ${first}` }), el('pre', { text: frames.join('\n') || '(no Scheme frames)' }));
  });
  return el('div', { class: 'nc-deaths' }, el('div', { class: 'nc-deaths-head', text: `${deaths.length} died with an error` }), ...items);
}

/** @param {any} p @param {any} n @param {import('./store.js').Store} store @param {number} now */
function procRow(p, n, store, now) {
  const arrived = store.arrivedHere(p.pid, n.id, now);
  const st = String(p.state ?? '');
  const from = arrived ? store.nodes.get(arrived.from) : null;
  const name = procName(p.name);
  return el(
    'li',
    { class: `proc${arrived ? ' arrived' : ''}${p.migrated ? ' migrated' : ''}${name.system ? ' system' : ''}`, dataset: { pid: p.pid, nodeId: n.id } },
    pidView(p.pid),
    el('span', { class: 'pname', text: name.text, title: name.title }),
    arrived ? el('span', { class: 'from', text: `from ${from ? nodeName(from) : shortId(arrived.from)}` }) : p.migrated ? el('span', { class: 'mig-tag', text: 'moved', title: 'this process migrated here' }) : null,
    el('span', { class: `state st-${st.split('-')[0]}`, text: STATE_LABEL[st] ?? st }),
    ...killButton(String(p.pid), n.id),
  );
}

/**
 * @param {HTMLElement} root @param {HTMLElement} count
 * @param {import('./store.js').Store} store
 */
export function renderSpaces(root, count, store) {
  /** @type {{node: any, name: string, tuples: number, kind: string, home: string, durable: boolean, rate: number}[]} */
  const rows = [];
  const now = Date.now();
  for (const n of store.ordered()) {
    for (const s of n.spaces ?? []) {
      const name = String(s.name);
      rows.push({ node: n, name, tuples: s.tuples ?? 0, kind: String(s.kind ?? 'local'), home: String(s.home ?? n.id), durable: s.durable === true, rate: spaceRate(`${n.id}/${name}`, (s.outs ?? 0) + (s.ins ?? 0), now) });
    }
  }
  rows.sort((a, b) => b.tuples - a.tuples || a.name.localeCompare(b.name));
  const max = Math.max(1, ...rows.map((r) => r.tuples));
  const total = rows.reduce((s, r) => s + r.tuples, 0);
  count.textContent = rows.length ? `${rows.length} · ${compact(total)} tuples` : '';
  if (rows.length === 0) {
    root.replaceChildren(el('div', { class: 'empty', text: 'No tuple spaces yet — (out \'(hello 1)) makes one.' }));
    return;
  }
  root.replaceChildren(
    ...rows.map((r) => {
      const bar = el('span', { class: 'bar-fill' });
      bar.style.width = `${Math.max(r.tuples > 0 ? 3 : 0, (r.tuples / max) * 100).toFixed(1)}%`;
      return el(
        'div',
        { class: 'space', dataset: { space: r.name, nodeId: r.node.id, tuples: String(r.tuples), kind: r.kind, home: r.home } },
        el('span', { class: 'space-name', text: r.name === '' ? '(default)' : r.name, title: r.name }),
        el('span', { class: `space-kind kind-${r.kind}`, text: spaceKindText(r, store), title: KIND_TITLES[r.kind] ?? r.kind }),
        el('span', { class: `space-node ${r.node.kind === 'tab' ? 'tab' : 'daemon'}`, text: r.node.kind === 'tab' ? `tab ${shortId(r.node.id)}` : nodeName(r.node) }),
        el('span', { class: 'bar' }, bar),
        el('span', { class: 'space-rate', text: `${compact(Math.round(r.rate))}/s`, title: 'tuples in and out per second' }),
        el('span', { class: 'space-count', text: compact(r.tuples) }),
      );
    }),
  );
}

/** What each kind of space is, for the kind's tooltip. @type {Record<string, string>} */
const KIND_TITLES = {
  local: "this node's own space",
  central: 'held here, reachable from every node',
  distributed: "this node's replica of a distributed space: size and rate are this replica's (its own outs and withdrawals)",
};

/** The kind column: the kind, durable, and a replica's home when another node made it. @param {{kind: string, home: string, durable: boolean, node: any}} r @param {import('./store.js').Store} store */
function spaceKindText(r, store) {
  if (r.durable) return `${r.kind} · durable`;
  if (r.home !== r.node.id) return `${r.kind} · home ${label(store.nodes.get(r.home), r.home)}`;
  return r.kind;
}

/** Each space's last count of tuples in and out, to give its rate between two samples. @type {Map<string, {at: number, ops: number, rate: number}>} */
const spaceOps = new Map();

/** Tuples in and out per second of a space since its previous sample (kept 200 ms at least). @param {string} key @param {number} ops @param {number} now */
function spaceRate(key, ops, now) {
  const prev = spaceOps.get(key);
  if (prev !== undefined && now - prev.at < 200) return prev.rate;
  const rate = prev === undefined || ops < prev.ops ? 0 : ((ops - prev.ops) * 1000) / (now - prev.at);
  spaceOps.set(key, { at: now, ops, rate });
  return rate;
}

/**
 * @param {HTMLElement} root @param {HTMLElement} count
 * @param {import('./store.js').Store} store
 * @param {Set<string>} fresh keys of migrations that just arrived (animated in)
 */
export function renderMigrations(root, count, store, fresh) {
  count.textContent = `${store.migrationsTotal} total`;
  const list = [...store.migrations].reverse().slice(0, 40);
  if (list.length === 0) {
    root.replaceChildren(el('li', { class: 'empty', text: 'No migrations seen yet. (migrate node) moves a running process.' }));
    return;
  }
  root.replaceChildren(
    ...list.map((m) => {
      const from = store.nodes.get(m.from);
      const to = store.nodes.get(m.to);
      const k = migKey(m);
      return el(
        'li',
        { class: `mig${fresh.has(k) ? ' new' : ''}`, dataset: { pid: m.pid, from: m.from, to: m.to } },
        el('span', { class: 'time', text: clock(m.t) }),
        pidView(m.pid),
        el('span', { class: 'pname', text: procName(m.name).text }),
        el(
          'span',
          { class: 'route' },
          el('span', { class: `end ${from?.kind === 'tab' ? 'tab' : 'daemon'}`, text: label(from, m.from) }),
          el('span', { class: 'arrow', text: '→' }),
          el('span', { class: `end ${to?.kind === 'tab' ? 'tab' : 'daemon'}`, text: label(to, m.to) }),
        ),
      );
    }),
  );
}

/**
 * A pid as the snapshot gives it (serial@node-prefix), the node part dimmed.
 * @param {string} pid
 */
function pidView(pid) {
  const at = String(pid).indexOf('@');
  if (at < 0) return el('span', { class: 'pid', text: pid });
  return el('span', { class: 'pid', title: pid }, String(pid).slice(0, at), el('span', { class: 'pid-node', text: String(pid).slice(at) }));
}

/**
 * How a process is named: after the procedure it was started with; the runtime's own
 * processes (%repl-server, handlers) are marked as such.
 * @param {string|undefined} name
 */
export function procName(name) {
  const n = String(name ?? 'process');
  if (n === 'anonymous') return { text: 'λ', title: 'an anonymous procedure', system: false };
  if (n === '%repl-server') return { text: 'REPL', title: 'the evaluator of this node\'s REPL (%repl-server)', system: true };
  if (n === 'handler' || n.startsWith('%')) return { text: n, title: 'a process of the runtime', system: true };
  return { text: n, title: n, system: false };
}

/** @param {any} m */
export const migKey = (m) => `${m.t}|${m.pid}|${m.to}`;

/** @param {any} n @param {string} id */
function label(n, id) {
  if (!n) return shortId(id);
  return n.kind === 'tab' ? `tab ${shortId(n.id)}` : nodeName(n);
}
