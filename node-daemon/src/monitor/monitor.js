// @ts-check
/**
 * When the mesh is sampled for the dashboard, and who hears of it.
 *
 * One Monitor per host samples the mesh (Distribution.meshSnapshot) only while someone
 * is looking — a viewer (an open event stream), or /api/state asked for in the last
 * 15 s — so an unwatched daemon sends no dashboard traffic. Every viewer shares the
 * same samples: a snapshot is at most one mesh round per 250 ms however many
 * dashboards are open. What the samples mean (rates, migrations, history) is
 * mesh-history.js's.
 *
 * Invariants: at most one snapshot in flight (a slow mesh skips a beat rather than
 * piling up); a snapshot is bounded in time (a failed or slow one gives the last known
 * nodes and the reason); when the host stops, every viewer is ended so the server can
 * close.
 */
import { MeshHistory } from './mesh-history.js';
import { bounded, errorText } from '../bounded.js';

/** @typedef {import('./mesh-history.js').Tick} Tick */

/**
 * @typedef {object} Viewer someone who hears every tick while it is registered
 * @property {(tick: Tick) => void} tick
 * @property {() => void} end the host is stopping
 */

export const TICK_MS = 500;
const CACHE_MS = 250;
const INTEREST_MS = 15000;
const SNAPSHOT_BOUND_MS = 2500;
const NODE_TIMEOUT_MS = 1500;

/** @type {WeakMap<any, Monitor>} */
const monitors = new WeakMap();

/** The host's monitor (made on first use). @param {any} host a started host (node-daemon/src/host.js) */
export function monitorOf(host) {
  let m = monitors.get(host);
  if (!m) {
    m = new Monitor(host);
    monitors.set(host, m);
  }
  return m;
}

/** Samples one host's mesh while anyone watches. */
export class Monitor {
  /** @param {any} host */
  constructor(host) {
    this.host = host;
    /** @type {Set<Viewer>} */
    this.viewers = new Set();
    this.interestUntil = 0;
    /** @type {NodeJS.Timeout|null} */
    this.timer = null;
    /** @type {Promise<Tick>|null} */
    this.inflight = null;
    /** @type {Tick|null} */
    this.last = null;
    this.history = new MeshHistory(TICK_MS);
  }

  /** What a new viewer gets first. */
  hello() {
    return {
      self: this.host.node?.id ?? null,
      tickMs: TICK_MS,
      history: this.history.history,
      recentMigrations: this.history.migrations,
    };
  }

  /** Someone asked once (/api/state): keep sampling for a while. */
  interest() {
    this.interestUntil = Date.now() + INTEREST_MS;
    this.ensureRunning();
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
      for (const v of this.viewers) v.end();
      this.viewers.clear();
      this.stopRunning();
      return;
    }
    if (this.viewers.size === 0 && Date.now() > this.interestUntil) {
      this.stopRunning();
      return;
    }
    if (this.inflight !== null) return; // a slow mesh: skip a beat rather than pile up
    const tick = await this.tick();
    for (const v of this.viewers) v.tick(tick);
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
    const tick = error === null ? this.history.derive(t, nodes) : { t, nodes, sample: null, migrations: [], migrationsTotal: this.history.migrationsTotal, error };
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
}
