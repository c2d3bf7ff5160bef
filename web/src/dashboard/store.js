// @ts-check
/**
 * The dashboard's picture of the mesh, fed by the daemon's `hello` and `tick` messages
 * (node-daemon/src/http/event-stream.js, node-daemon/src/monitor/): nodes, links derived from each node's peers,
 * the rate history, recent migrations and the processes that just arrived somewhere.
 */

export const HISTORY = 240;
export const RECENT = 60;
/** How long a process that arrived on a node stays highlighted (ms). */
export const ARRIVAL_MS = 6000;

/**
 * @typedef {object} Link
 * @property {string} key "a|b" with a < b
 * @property {string} a
 * @property {string} b
 * @property {string} transport 'websocket' | 'webrtc' | 'tcp' (the one traffic uses)
 * @property {number|null} rttMs
 */

export class Store {
  constructor() {
    /** @type {string|null} the daemon serving this page */
    this.self = null;
    /** @type {Map<string, any>} node id → snapshot (ghosts: {id, ghost: true}) */
    this.nodes = new Map();
    /** @type {Map<string, Link>} */
    this.links = new Map();
    /** @type {any[]} rate samples */
    this.history = [];
    /** @type {any[]} recent migrations, oldest first */
    this.migrations = [];
    this.migrationsTotal = 0;
    /** @type {Map<string, {t: number, from: string, to: string}>} pid → its latest arrival */
    this.arrivals = new Map();
    this.t = 0;
    /** @type {string|null} */
    this.error = null;
    this.tickMs = 500;
  }

  /** @param {any} d the `hello` message (or /api/state) */
  hello(d) {
    this.self = d.self ?? this.self;
    this.tickMs = d.tickMs ?? this.tickMs;
    this.history = (d.history ?? []).slice(-HISTORY);
    this.migrations = (d.recentMigrations ?? []).slice(-RECENT);
    for (const m of this.migrations) this.arrive(m);
    this.migrationsTotal = d.migrationsTotal ?? this.migrationsTotal;
    this.setNodes(d.t, d.nodes ?? []);
    this.error = d.error ?? null;
  }

  /**
   * @param {any} d a `tick` message
   * @returns {any[]} the migrations it brought
   */
  tick(d) {
    if (d.sample && !(this.history.length && this.history[this.history.length - 1].t >= d.sample.t)) {
      this.history.push(d.sample);
      if (this.history.length > HISTORY) this.history.splice(0, this.history.length - HISTORY);
    }
    const known = new Set(this.migrations.map((m) => `${m.t}|${m.pid}|${m.to}`));
    const fresh = (d.migrations ?? []).filter((/** @type {any} */ m) => !known.has(`${m.t}|${m.pid}|${m.to}`));
    this.migrations.push(...fresh);
    if (this.migrations.length > RECENT) this.migrations.splice(0, this.migrations.length - RECENT);
    for (const m of fresh) this.arrive(m);
    this.migrationsTotal = d.migrationsTotal ?? this.migrationsTotal;
    this.setNodes(d.t, d.nodes ?? []);
    this.error = d.error ?? null;
    return fresh;
  }

  /** @param {any} m */
  arrive(m) {
    this.arrivals.set(m.pid, { t: m.t, from: m.from, to: m.to });
  }

  /**
   * Is this process (on this node) one that arrived recently?
   * @param {string} pid @param {string} nodeId @param {number} now
   */
  arrivedHere(pid, nodeId, now) {
    const a = this.arrivals.get(pid);
    return a !== undefined && a.to === nodeId && now - a.t < ARRIVAL_MS ? a : null;
  }

  /** @param {number} t @param {any[]} list */
  setNodes(t, list) {
    this.t = t ?? Date.now();
    /** @type {Map<string, any>} */
    const nodes = new Map();
    for (const n of list) if (n && typeof n.id === 'string') nodes.set(n.id, n);
    /** @type {Map<string, Link>} */
    const links = new Map();
    for (const n of nodes.values()) {
      for (const p of n.peers ?? []) {
        if (typeof p.id !== 'string' || p.id === n.id) continue;
        if (!nodes.has(p.id)) nodes.set(p.id, { id: p.id, ghost: true, kind: 'unknown' });
        const [a, b] = n.id < p.id ? [n.id, p.id] : [p.id, n.id];
        const key = `${a}|${b}`;
        const seen = links.get(key);
        if (!seen) {
          links.set(key, { key, a, b, transport: p.transport ?? 'websocket', rttMs: p.rttMs ?? null });
        } else {
          // both ends report the link: an upgraded end wins, RTTs are averaged
          if (p.transport === 'webrtc') seen.transport = 'webrtc';
          if (p.rttMs != null) seen.rttMs = seen.rttMs == null ? p.rttMs : (seen.rttMs + p.rttMs) / 2;
        }
      }
    }
    this.nodes = nodes;
    this.links = links;
    const now = Date.now();
    for (const [pid, a] of this.arrivals) if (now - a.t > 60000) this.arrivals.delete(pid);
  }

  /** Nodes in display order: this daemon, other daemons, tabs, then the rest. */
  ordered() {
    const rank = (/** @type {any} */ n) => (n.id === this.self ? 0 : n.ghost || n.unreachable ? 3 : n.kind === 'tab' ? 2 : 1);
    return [...this.nodes.values()].sort((x, y) => rank(x) - rank(y) || String(x.address ?? '').localeCompare(String(y.address ?? '')) || x.id.localeCompare(y.id));
  }

  /** Totals over the reachable nodes. */
  totals() {
    let nodes = 0;
    let processes = 0;
    let tuples = 0;
    for (const n of this.nodes.values()) {
      if (n.ghost || n.unreachable) continue;
      nodes++;
      processes += n.processes?.live ?? 0;
      for (const s of n.spaces ?? []) tuples += s.tuples ?? 0;
    }
    return { nodes, processes, tuples, migrations: this.migrationsTotal };
  }
}
