// @ts-check
/**
 * Monitors: a one-shot notice, to a process waiting for an answer (`!?`), that the
 * process it asked ended or can no longer be reached — so a call never waits for ever
 * on a process that is gone.
 *
 * The notice is the message (%down tag reason) in the watcher's mailbox, where reason is
 * the symbol `normal` (the target returned), the target's uncaught exception (for
 * `terminate!`, a 'terminated error), a 'noproc error (it was not alive when the monitor
 * was set) or a 'node-down error (its node left the mesh, or this node has no mesh).
 *
 * How each case is seen:
 *  - a target on this node: its end (`finish`, links-and-signals.js) calls targetEnded;
 *  - a target elsewhere: an inbound link from it to a relay — a handler process of this
 *    node that stands for the watcher — so the distribution layer's links do the work:
 *    its death by an exception, `terminate!`, a GONE answer (not alive: 'noproc) and its
 *    node's failure all reach the relay as an exit signal (relaySignal); a normal
 *    return reaches it as an EXITED frame, which only a relay takes
 *    (linkedEndedNormally, links-and-signals.js). The link travels with a target that
 *    migrates (it is in the process's state), so its end is seen wherever it runs;
 *  - a local target that migrates away: its monitors become relays linked from it
 *    where it went (targetMoved, called by the migration once it has left).
 *
 * Invariants: a monitor delivers at most one notice, and none once it is removed
 * (`demonitor`); removing it unlinks and ends its relay, so an answered call leaves
 * nothing behind on either node.
 */
import { ErrorObject, Sym, arrayToList } from '../scheme-data.js';

/** @typedef {import('../termite-values.js').Pid} Pid */
/** @typedef {import('./process.js').Process} Process */
/** @typedef {import('../termite-node.js').TermiteNode} TermiteNode */

export class Monitor {
  /** @param {TermiteNode} node @param {Pid} target @param {Pid} watcher @param {any} tag */
  constructor(node, target, watcher, tag) {
    this.node = node;
    this.target = target;
    this.watcher = watcher;
    this.tag = tag;
    this.active = true;
    /** whether the notice was sent (the watcher may have it in its mailbox) */
    this.delivered = false;
    /** @type {Process|null} the local target */
    this.local = null;
    /** @type {Process|null} the relay for a target elsewhere */
    this.relay = null;
  }
}

/** Monitors of local processes. @type {WeakMap<Process, Set<Monitor>>} */
const byTarget = new WeakMap();
/** The monitor each relay stands for. @type {WeakMap<Process, Monitor>} */
const byRelay = new WeakMap();

/**
 * `watcher` will get (%down tag reason) when `target` ends or cannot be reached.
 * @param {TermiteNode} node @param {Pid} target @param {Pid} watcher @param {any} tag
 */
export function monitor(node, target, watcher, tag) {
  const m = new Monitor(node, target, watcher, tag);
  const proc = node.local(target);
  if (proc !== null) {
    m.local = proc;
    let set = byTarget.get(proc);
    if (set === undefined) byTarget.set(proc, (set = new Set()));
    set.add(m);
    return m;
  }
  const remote = node.remote;
  if (target.node === node.id && !remote?.isForwarded(target)) {
    down(m, new ErrorObject('the process is not alive', arrayToList([target]), 'noproc', null));
  } else if (remote === null) {
    down(m, new ErrorObject('its node cannot be reached: this node is not part of a mesh', arrayToList([target]), 'node-down', null));
  } else if (!remote.isAlive(target)) {
    down(m, new ErrorObject(`its node ${target.node.slice(0, 12)} is unreachable`, arrayToList([target]), 'node-down', null));
  } else {
    const relay = node.spawnHandler(() => {});
    m.relay = relay;
    byRelay.set(relay, m);
    node.addLink(target, relay.pid);
  }
  return m;
}

/**
 * Remove a monitor. Returns whether its notice was sent (the watcher should then take
 * it out of its mailbox).
 * @param {Monitor} m
 */
export function demonitor(m) {
  if (m.active) {
    m.active = false;
    if (m.local !== null) byTarget.get(m.local)?.delete(m);
    endRelay(m);
  }
  return m.delivered;
}

/**
 * A local process ended: its monitors' watchers are told.
 * @param {Process} proc @param {boolean} died @param {any} value the uncaught payload
 */
export function targetEnded(proc, died, value) {
  const set = byTarget.get(proc);
  if (set === undefined) return;
  byTarget.delete(proc);
  for (const m of set) down(m, died ? value : Sym.intern('normal'));
}

/**
 * A local process migrated to another node (its forwarding entry is set): its monitors
 * now watch it there, each through a relay linked from it, as for a target elsewhere.
 * @param {TermiteNode} node @param {Process} proc
 */
export function targetMoved(node, proc) {
  const set = byTarget.get(proc);
  if (set === undefined) return;
  byTarget.delete(proc);
  for (const m of set) {
    if (!m.active) continue;
    m.local = null;
    const relay = node.spawnHandler(() => {});
    m.relay = relay;
    byRelay.set(relay, m);
    node.addLink(m.target, relay.pid);
  }
}

/**
 * An exit signal reached a handler process: if it is a monitor's relay, the target
 * ended (or its node did). Returns whether it was one.
 * @param {Process} proc @param {any} payload
 */
export function relaySignal(proc, payload) {
  const m = byRelay.get(proc);
  if (m === undefined) return false;
  down(m, payload);
  return true;
}

/** @param {Monitor} m @param {any} reason */
function down(m, reason) {
  if (!m.active) return;
  m.active = false;
  m.delivered = true;
  endRelay(m);
  m.node.send(m.watcher, arrayToList([Sym.intern('%down'), m.tag, reason]));
  // a notice from the network arrives outside the scheduling loop: wake it
  m.node.poke();
}

/** @param {Monitor} m */
function endRelay(m) {
  const relay = m.relay;
  if (relay === null) return;
  m.relay = null;
  byRelay.delete(relay);
  if (!relay.alive) return;
  m.node.removeLink(m.target, relay.pid);
  m.node.finish(relay, false, null);
}

/**
 * The error a caller raises when the process it asked ended before it answered.
 * @param {string} who @param {Pid} target @param {any} reason a notice's reason
 * @param {(e: any) => string} describe how an error reads (describeError)
 */
export function downError(who, target, reason, describe) {
  if (reason instanceof ErrorObject && (reason.kind === 'noproc' || reason.kind === 'node-down')) {
    const what = reason.kind === 'noproc' ? 'the process is not alive' : reason.message.replace(/^node /, 'its node ');
    return new ErrorObject(what, arrayToList([target]), reason.kind, who);
  }
  if (reason instanceof ErrorObject && reason.kind === 'terminated') {
    return new ErrorObject('the process was terminated before it answered', arrayToList([target]), 'noproc', who);
  }
  if (reason === Sym.intern('normal')) {
    return new ErrorObject('the process ended before it answered', arrayToList([target]), 'noproc', who);
  }
  return new ErrorObject(`the process died before it answered (${describe(reason)})`, arrayToList([target]), 'noproc', who);
}
