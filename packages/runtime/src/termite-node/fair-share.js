// @ts-check
/**
 * CPU shares of owners: processes are grouped by who started them — this node's own
 * programs (the local group), or one peer (the processes its remote spawns started here,
 * their descendants, and processes that migrated here from it) — and while more than
 * one group wants to run, each group gets about the same run time, however many
 * processes it has (docs/processes.md, "Fairness").
 *
 * How (rounds of quotas, deficits carried over): each group counts the reductions its
 * processes did (`spent`, charges of primitives included). A process that comes up to
 * run (after a yield, or woken by a message, a tuple, a timer or an answer) while its
 * group's count is at its QUOTA or more is put back at the end of the run queue
 * without running (`core.yield`), provided that more than one group ran in
 * this round or the last one. A round ends when every ready process was put back in a
 * row (counted against the core's ready count) or when the scheduler's run ends (≤ 8 ms);
 * then every group's count goes down by QUOTA — or, when everything ready was put back,
 * by the least count among the groups put back, so that one of them runs at once. A
 * group whose single slice cost much more than QUOTA (a primitive over huge data) so
 * waits as many quotas as it took: its share is measured in work, not in slices. And a
 * slice that took longer than the fuel it spent says (the clock is read after each
 * slice's worth of fuel anyway: runReady) is charged the difference, at 300 reductions a
 * microsecond, up to 16 times its fuel: `length` of a list beyond the CPU's caches
 * costs 8-18 ns an element, not the 1.6 its fuel says, and its group pays for the time
 * (the cap keeps the time the OS gave other programs, on a loaded machine, from landing
 * on whichever group ran last).
 *
 * Invariants:
 *  - a node with one group running (the usual local program) never puts a process back:
 *    the loop's cost is an addition and two comparisons a slice;
 *  - a group is in `owing` exactly while its count is above zero; `roundGroups` holds the
 *    groups that ran in the current round, each once (`ranIn`);
 *  - a process woken by a message (a tuple, a timeout, an answer) is put back like one
 *    that used up its slice, after taking its wake-up: a peer whose processes wake each
 *    other with messages gets its share, no more; a process of a group under its quota
 *    runs at once when woken (interactive processes keep their latency).
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
    /** reductions its processes did, less what the rounds since have granted */
    this.spent = 0;
    /** the round in which it last ran (TermiteNode.round) */
    this.ranIn = -1;
    /** live processes in it (a peer's group is dropped when it has none) */
    this.live = 0;
  }
}

/** @typedef {import('./process.js').Process} Process */
/** @typedef {import('../termite-node.js').TermiteNode} TermiteNode */

/**
 * Put `proc` in its peer's group (made on first use).
 * @param {Process} proc @param {string} peer @this {TermiteNode}
 */
export function joinGroup(proc, peer) {
  let g = this.peerGroups.get(peer);
  if (g === undefined) {
    g = new OwnerGroup(peer);
    this.peerGroups.set(peer, g);
  }
  g.live++;
  proc.group = g;
}

/** A process leaves its group; a peer's group goes with its last process. @param {Process} proc @this {TermiteNode} */
export function leaveGroup(proc) {
  const g = proc.group;
  if (g.peer === null) return;
  if (--g.live === 0) this.peerGroups.delete(g.peer);
}

/**
 * A group's process ran `used` reductions (runReady, after the slice).
 * @param {OwnerGroup} g @param {number} used @this {TermiteNode}
 */
export function charged(g, used) {
  if (g.spent === 0 && used > 0) this.owing.push(g);
  g.spent += used;
  if (g.ranIn !== this.round) {
    g.ranIn = this.round;
    this.roundGroups.push(g);
  }
}

/**
 * runReady found `proc` over its group's quota: put it back, and end the round when
 * every ready process was put back in a row. Returns false when the process should
 * run after all (its group is the only one running lately, or it is a handler). A
 * process the core woke (a message, a tuple, a timeout, an answer: `reason`) takes its
 * wake-up first (scheduler.js prepareWake: the message received, the answer set), so
 * it resumes with it when it comes up again, like a process that used up its slice.
 * @param {Process} proc @param {string} reason why the core made it ready @this {TermiteNode}
 */
export function putBack(proc, reason) {
  const g = proc.group;
  if (this.roundGroups.length < 2 && this.lastRoundGroups < 2) {
    this.forgive(g); // alone: no debt
    return false;
  }
  if (proc.handler !== null) return false;
  if (proc.waiting !== null) this.prepareWake(proc, proc, reason);
  if (this.putBacks === 0) {
    this.putBackLimit = this.core.processStats().ready + 1;
    this.leastPutBack = g.spent;
  } else if (g.spent < this.leastPutBack) this.leastPutBack = g.spent;
  this.core.yield(proc.cpid);
  this.stats.putBacks++;
  if (++this.putBacks >= this.putBackLimit) this.endRound(this.leastPutBack);
  return true;
}

/** @param {OwnerGroup} g @this {TermiteNode} */
export function forgive(g) {
  g.spent = 0;
  const i = this.owing.indexOf(g);
  if (i >= 0) this.owing.splice(i, 1);
}

/**
 * End the round: every count goes down by `grant` (at least QUOTA).
 * @param {number} grant @this {TermiteNode}
 */
export function endRound(grant) {
  const by = grant > QUOTA ? grant : QUOTA;
  const owing = this.owing;
  let kept = 0;
  for (let i = 0; i < owing.length; i++) {
    const g = owing[i];
    g.spent = g.spent > by ? g.spent - by : 0;
    if (g.spent > 0) owing[kept++] = g;
  }
  owing.length = kept;
  this.lastRoundGroups = this.roundGroups.length;
  this.roundGroups.length = 0;
  this.round++;
  this.putBacks = 0;
}
