// @ts-check
/**
 * What the dashboard shows over time, derived from successive snapshots of the mesh
 * (Distribution.meshSnapshot): per-node and summed rates, the rate history, and the
 * migrations — with the name of the process that moved.
 *
 * Invariants:
 *   - rates are counter differences over the last RATE_WINDOW_MS (smooth lines, ~2 s
 *     behind), never over a pause: after a gap (nobody watched for over 5 ticks) the
 *     window, the sightings and the history start again;
 *   - a migration is listed once: from the arrivals a node reports (each arrival has a
 *     sequence number, so one that came and went between two snapshots is still seen),
 *     or else from a process listed on another node than at the last snapshot;
 *   - one tick's hops of a process are listed in the order it made them (chainHops);
 *   - an unreachable node is shown as what it was when last reached (a tab stays a tab);
 *   - everything kept is bounded: HISTORY samples, RECENT_MIGRATIONS migrations, and
 *     sightings for SEEN_MS.
 */

const RATE_WINDOW_MS = 4000; // rates are averaged over this window (smooth lines, ~2 s behind)
const HISTORY = 240; // samples kept: two minutes at 500 ms ticks
const RECENT_MIGRATIONS = 60;
const SEEN_MS = 10000; // how long a process missing from the snapshots is remembered
/** Counters whose per-second rates are sampled (names as in a node snapshot's counters). */
const RATE_KEYS = /** @type {const} */ (['messages', 'migrationsIn', 'sent', 'received', 'forwarded', 'spawned', 'exited', 'slices']);

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
 * @typedef {object} Totals what one snapshot sums to
 * @property {Record<string, number>} sums per-second rates of RATE_KEYS over the mesh
 * @property {number} processes
 * @property {number} tuples
 * @property {number} reachable
 * @property {Map<string, Record<string, number>>} counters node id → its counters now
 */

export class MeshHistory {
  /** @param {number} tickMs how often snapshots are taken while someone watches */
  constructor(tickMs) {
    this.tickMs = tickMs;
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

  /**
   * Rates per node and summed, migrations, history: one snapshot taken at `t` (the
   * nodes are annotated in place with their `rates`).
   * @param {number} t @param {any[]} nodes @returns {Tick}
   */
  derive(t, nodes) {
    // after a pause (nobody watched) the counters' differences are not rates
    const gap = this.prevT === 0 || t - this.prevT > 5 * this.tickMs;
    if (gap) this.window = [];
    const totals = this.rateNodes(t, nodes);
    if (gap) {
      this.seen.clear();
      this.arrivalSeqs.clear();
    }
    const moved = this.arrivalMoves(t, nodes);
    chainHops(moved, (pid) => this.seen.get(pid)?.node ?? birthNode(pid, nodes));
    this.sightedMoves(t, nodes, moved);
    this.forget(t);
    this.migrations.push(...moved);
    if (this.migrations.length > RECENT_MIGRATIONS) this.migrations.splice(0, this.migrations.length - RECENT_MIGRATIONS);
    this.counters = totals.counters;
    this.window.push({ t, counters: totals.counters });
    while (this.window.length > 0 && t - this.window[0].t > RATE_WINDOW_MS + this.tickMs) this.window.shift();
    const sample = gap ? null : sampleOf(t, totals);
    if (sample !== null) {
      this.history.push(sample);
      if (this.history.length > HISTORY) this.history.splice(0, this.history.length - HISTORY);
    } else {
      this.history.length = 0;
    }
    this.prevT = t;
    return { t, nodes, sample, migrations: moved, migrationsTotal: this.migrationsTotal, error: null };
  }

  /**
   * Each reachable node's rates (set on it), the arrivals it counted, and the sums.
   * @param {number} t @param {any[]} nodes @returns {Totals}
   */
  rateNodes(t, nodes) {
    // rates are measured over the last RATE_WINDOW_MS, not one tick: smoother lines
    const ref = this.window.find((w) => t - w.t <= RATE_WINDOW_MS + this.tickMs / 2) ?? null;
    const dt = ref ? Math.max(1, t - ref.t) / 1000 : 1;
    /** @type {Totals} */
    const totals = { sums: Object.fromEntries(RATE_KEYS.map((k) => [k, 0])), processes: 0, tuples: 0, reachable: 0, counters: new Map() };
    for (const n of nodes) {
      if (n?.unreachable) {
        // an unreachable node is shown as what it was when last reached (a tab stays a tab)
        const k = this.known.get(n.id);
        n.kind = k?.kind ?? 'unknown';
        n.address = k?.address ?? null;
      }
      if (!n || n.unreachable) continue;
      this.known.set(n.id, { kind: n.kind, address: n.address ?? null });
      totals.reachable++;
      const c = n.counters ?? {};
      const prev = this.counters.get(n.id);
      const base = ref?.counters.get(n.id);
      /** @type {Record<string, number>} */
      const rates = {};
      for (const k of RATE_KEYS) {
        const d = base ? (c[k] ?? 0) - (base[k] ?? 0) : 0;
        rates[k] = d > 0 ? d / dt : 0;
        totals.sums[k] += rates[k];
      }
      // arrivals: a node seen for the first time brings what it counted before
      const arrived = prev ? (c.migrationsIn ?? 0) - (prev.migrationsIn ?? 0) : (c.migrationsIn ?? 0);
      if (arrived > 0) this.migrationsTotal += arrived;
      n.rates = rates;
      totals.counters.set(n.id, c);
      totals.processes += n.processes?.live ?? 0;
      for (const s of n.spaces ?? []) totals.tuples += s.tuples ?? 0;
    }
    return totals;
  }

  /**
   * Every migration a node recorded since the last tick, even one that came and went
   * between two ticks (a node seen for the first time brings only its later ones).
   * @param {number} t @param {any[]} nodes @returns {Migration[]}
   */
  arrivalMoves(t, nodes) {
    /** @type {Migration[]} */
    const moved = [];
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
    return moved;
  }

  /**
   * What the process lists show: a pid listed on another node than before is a
   * migration (for nodes that report no arrivals; a move the arrivals already gave is not
   * listed twice). Adds to `moved`, and remembers where each process was seen.
   * @param {number} t @param {any[]} nodes @param {Migration[]} moved
   */
  sightedMoves(t, nodes, moved) {
    for (const n of nodes) {
      if (!n || n.unreachable) continue;
      for (const p of n.processes?.shown ?? []) {
        const was = this.seen.get(p.pid);
        if (was !== undefined && p.migrated) p.name = was.name;
        if (was !== undefined && was.node !== n.id && !this.fromArrivals.has(`${p.pid}>${n.id}`)) moved.push({ t, pid: p.pid, name: p.name, from: was.node, to: n.id });
        this.seen.set(p.pid, { node: n.id, name: p.name, t });
      }
    }
  }

  /** Forget sightings older than SEEN_MS. @param {number} t */
  forget(t) {
    for (const [pid, s] of this.seen) if (t - s.t > SEEN_MS) this.seen.delete(pid);
    for (const [k, at] of this.fromArrivals) if (t - at > SEEN_MS) this.fromArrivals.delete(k);
  }
}

/** @param {number} t @param {Totals} totals @returns {Sample} */
function sampleOf(t, { sums, processes, tuples, reachable }) {
  return {
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
}

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
