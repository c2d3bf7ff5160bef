// @ts-check
/**
 * CPU shares of owners: processes are grouped by who started them — this node's own
 * programs (the local group), or one peer (the processes its remote spawns started here,
 * their descendants, and processes that migrated here from it) — and while more than
 * one group wants to run, each group gets about the same run time, however many
 * processes it has (docs/processes.md, "Fairness").
 *
 * How (rounds of quotas): each group counts the reductions its processes did in the
 * current round (`spent`). A process that comes up to run after a yield (not woken by a
 * message, a tuple, a timer or an answer: those run at once) while its group has spent
 * its QUOTA is put back at the end of the run queue without running (`core.yield`),
 * provided that more than one group ran in this round or the last one. When every ready
 * process has been put back in a row (counted against the core's ready count), the
 * round ends: every group's count starts again from zero. A round also ends when the
 * scheduler's run does (≤ 8 ms), so a group that stopped running leaves the count.
 *
 * Invariants:
 *  - one node with one group (the usual local program) never puts a process back: the
 *    loop's only cost is an addition and a comparison a slice;
 *  - a process is never put back twice in a row without the round ending or another
 *    process running (the core's queue is FIFO within a priority);
 *  - a woken process is never put back (its wake reason would be lost): interactive
 *    processes keep their latency; only processes that used up their slice wait.
 *
 * These functions are TermiteNode's methods (`this` is the node).
 */

/** Reductions a group may do in a round while others want to run (8 slices). */
export const QUOTA = 32_000;

/** A group of processes with one owner. */
export class OwnerGroup {
  /** @param {string|null} peer the peer, or null for this node's own processes */
  constructor(peer) {
    this.peer = peer;
    /** reductions its processes did in the current round */
    this.spent = 0;
    /** live processes in it (a peer's group is dropped when it has none) */
    this.live = 0;
  }
}

/** @typedef {import('./process.js').Process} Process */
/** @typedef {import('../termite-node.js').TermiteNode} TermiteNode */

/**
 * The group of a peer's processes (made on first use).
 * @param {string} peer @this {TermiteNode}
 */
export function ownerGroup(peer) {
  let g = this.peerGroups.get(peer);
  if (g === undefined) {
    g = new OwnerGroup(peer);
    this.peerGroups.set(peer, g);
  }
  return g;
}

/**
 * Put `proc` in its peer's group; a process leaving drops a group that becomes empty.
 * @param {Process} proc @param {string} peer @this {TermiteNode}
 */
export function joinGroup(proc, peer) {
  const g = this.ownerGroup(peer);
  g.live++;
  proc.group = g;
}

/** @param {Process} proc @this {TermiteNode} */
export function leaveGroup(proc) {
  const g = proc.group;
  if (g.peer === null) return;
  if (--g.live === 0) this.peerGroups.delete(g.peer);
}

/**
 * A group's processes ran `used` reductions: the first of the round enters the round.
 * @param {OwnerGroup} g @this {TermiteNode}
 */
export function enterRound(g) {
  this.roundGroups.push(g);
}

/**
 * runReady found `proc` over its group's quota: put it back, and end the round when
 * every ready process was put back in a row. Returns false when the process should
 * run after all (one group only, lately).
 * @param {Process} proc @this {TermiteNode}
 */
export function putBack(proc) {
  if (this.roundGroups.length < 2 && this.lastRoundGroups < 2) {
    proc.group.spent = 1; // alone: not asked again before another quota (it stays in the round)
    return false;
  }
  if (proc.handler !== null) return false;
  if (this.putBacks === 0) this.putBackLimit = this.core.processStats().ready + 1;
  this.core.yield(proc.cpid);
  this.stats.putBacks++;
  if (++this.putBacks >= this.putBackLimit) this.endRound();
  return true;
}

/** Every group starts the round again from zero. @this {TermiteNode} */
export function endRound() {
  const groups = this.roundGroups;
  this.lastRoundGroups = groups.length;
  for (let i = 0; i < groups.length; i++) groups[i].spent = 0;
  groups.length = 0;
  this.putBacks = 0;
}
