// @ts-check
/**
 * What a node shows of itself: its load (an exponentially weighted average of the
 * fraction of time the scheduler spends running processes, time constant ~1 s, for
 * `(node-load)`) and a JSON-able snapshot for the dashboard (processes, spaces,
 * counters, the last deaths logged; docs/dashboard.md).
 *
 * These functions are TermiteNode's methods (`this` is the node), moved here whole.
 */

import { spaceSummaries } from '../linda/space-table.js';

/** @typedef {import('../termite-node.js').TermiteNode} TermiteNode */

/**
 * Account scheduler busy time, for `(node-load)`: an exponentially weighted average
 * of the fraction of time spent running processes (time constant ~1 s).
 * @param {number} from @param {number} to
 * @this {TermiteNode}
 */
export function noteBusy(from, to) {
  const since = to - this.loadAt;
  if (since <= 0) return;
  const busy = Math.min(to - from, since);
  const decay = Math.exp(-since / 1000);
  this.loadAvg = this.loadAvg * decay + (busy / since) * (1 - decay);
  this.loadAt = to;
}

/** The load average in [0, 1], decayed to now. @this {TermiteNode} */
export function load() {
  const since = this.now() - this.loadAt;
  return since > 0 ? this.loadAvg * Math.exp(-since / 1000) : this.loadAvg;
}

/**
 * A JSON-able picture of this node for the dashboard: processes, spaces, counters.
 * @param {number} [maxProcesses]
 * @this {TermiteNode}
 */
export function snapshot(maxProcesses = 200) {
  const procs = [];
  const seen = new Set();
  for (const p of [...this.bySlot, ...this.guests.values()]) {
    if (p === undefined || !p.alive || seen.has(p) || p === this.stdoutProcess) continue;
    seen.add(p);
    if (procs.length < maxProcesses) {
      procs.push({ pid: `${p.pid.n}@${p.pid.node.slice(0, 8)}`, name: p.handler !== null ? 'handler' : (p.name ?? p.clo?.lam?.name ?? p.k?.lam?.name ?? 'process'), state: this.core.state(p.cpid), migrated: p.visited !== null });
    }
  }
  const spaces = spaceSummaries(this); // name, kind, home, durable, tuples, outs, ins
  return {
    id: this.id,
    kind: this.kind,
    address: this.ref.host !== null ? `${this.ref.host}:${this.ref.port}` : null,
    load: this.load(),
    processes: { live: this.core.processStats().live - 1, shown: procs },
    spaces,
    counters: { ...this.stats, ...(this.remote?.stats ?? {}) },
    coreBytes: this.core.liveBytes,
    deaths: this.recentDeaths.slice(), // the last logged deaths of unwatched processes, with their frames
  };
}
