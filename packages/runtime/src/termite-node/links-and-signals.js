// @ts-check
/**
 * Links and exit signals between processes (Termite §3): `from` linked to `to` means
 * that when `from` dies of an uncaught exception, the exception is raised in `to`. A
 * normal exit raises nothing; `terminate!` ends a process with a 'terminated error.
 *
 * Invariants:
 *  - a process's outbound links are in `proc.links` (each pid once); a link whose
 *    `from` is elsewhere is the distribution layer's (node.remote, remote-ops.js);
 *  - linking from a process of this node that is dead (and did not migrate away)
 *    signals `to` at once: it will never raise;
 *  - an exit signal is queued in the process and raised at its next receive; a waiting
 *    process is interrupted to raise it at once; a handler process ignores signals (a
 *    monitor's relay turns them into a notice, monitors.js); a process that traps
 *    exits (`trapExits`) hands them to its host and lives on;
 *  - a process ends once (`finish`): it leaves the process table before its links fire
 *    and its onExit is told;
 *  - a normal end raises nothing and signals no one; it only reaches monitors' relays
 *    linked from the process (at once here; an EXITED frame per link to another node),
 *    so a `!?` to a process elsewhere that returns without answering fails at once;
 *  - the death of a process no one watches is logged, at most DEATH_LINES a second:
 *    beyond, deaths are counted and the count is logged with the next line (a fork
 *    bomb whose processes die at the process limit cannot flood the log).
 *
 * These functions are TermiteNode's methods (`this` is the node), moved here whole.
 */
import { ErrorObject, Pair, Sym } from '../scheme-data.js';
import { describeError, uncaughtBacktrace, formatBacktrace, writeForReport } from '@termite/scheme';
import { targetEnded, relaySignal } from './monitors.js';
import { cancelRecordsOf } from '../linda/core-records.js';

/** Deaths of unwatched processes logged in one second, at most. */
const DEATH_LINES = 20;

/** @typedef {import('../termite-values.js').Pid} Pid */
/** @typedef {import('./process.js').Process} Process */
/** @typedef {import('../termite-node.js').TermiteNode} TermiteNode */

/**
 * `from` gets an outbound link to `to`: when `from` dies of an uncaught exception,
 * the exception is raised in `to`.
 * @param {Pid} from @param {Pid} to
 * @this {TermiteNode}
 */
export function addLink(from, to) {
  const p = this.local(from);
  if (p !== null) {
    if (p.links === null) p.links = [];
    if (!p.links.some((q) => q.node === to.node && q.n === to.n)) p.links.push(to);
    return;
  }
  if (from.node === this.id && !this.remote?.isForwarded(from)) {
    // the process is already dead: it will never raise; tell `to` at once
    this.signal(to, new ErrorObject('linked process is not alive', new Pair(from, null), 'noproc', 'link'));
    return;
  }
  if (this.remote !== null) this.remote.link(from, to);
}

/** @param {Pid} from @param {Pid} to @this {TermiteNode} */
export function removeLink(from, to) {
  const p = this.local(from);
  if (p !== null) {
    if (p.links !== null) p.links = p.links.filter((q) => !(q.node === to.node && q.n === to.n));
  } else if (this.remote !== null) this.remote.unlink(from, to);
}

/**
 * Deliver an exit signal: raised in the process at its next receive, at once if it
 * is waiting — or, for a process that traps exits, handed to its host.
 * @param {Pid} pid @param {any} payload
 * @param {Pid|null} [from] the process that died, when it was on this node
 * @this {TermiteNode}
 */
export function signal(pid, payload, from = null) {
  const proc = this.local(pid);
  if (proc === null) {
    if (this.remote !== null) this.remote.signal(pid, payload);
    return;
  }
  const trap = trapping.get(proc);
  if (trap !== undefined) {
    trap(payload, from);
    return;
  }
  if (proc.handler !== null) {
    relaySignal(proc, payload); // a handler ignores signals, unless it is a monitor's relay
    return;
  }
  if (proc.signals === null) proc.signals = [];
  proc.signals.push(payload);
  if (from !== null && payload instanceof ErrorObject) signalSenders.set(payload, from);
  // a waiting process is woken to raise it now; a ready or running one raises it at
  // its next receive (prepareWake also raises pending signals first)
  if (proc.waiting !== null && this.isWaiting(proc)) {
    this.core.interrupt(proc.cpid);
    this.poke();
  }
}

/**
 * End a process. `died` with the uncaught payload, or a normal return. Uncaught
 * exceptions go to the processes it is linked to; a normal exit does not.
 * @param {Process} proc @param {boolean} died @param {any} value
 * @this {TermiteNode}
 */
export function finish(proc, died, value) {
  if (!proc.alive) return;
  proc.alive = false;
  // a process that ends waiting on another node's tuple space: that node stops waiting for it
  if (proc.waiting !== null && proc.waiting.info?.spaceRequest !== undefined) /** @type {any} */ (this.remote)?.spaceRequestAbandoned(proc.waiting.info);
  proc.waiting = null;
  if (proc.asyncRecords) cancelRecordsOf(this, proc); // in-async/rd-async never collected
  this.core.exit(proc.cpid);
  this.forget(proc);
  this.stats.exited++;
  if (proc.visited && this.remote !== null) this.remote.processEnded(proc);
  proc.k = null;
  const links = proc.links ?? [];
  proc.links = null;
  if (died) {
    const terminated = value instanceof ErrorObject && value.kind === 'terminated';
    if (links.length === 0 && proc.onExit === null && !terminated) logDeath(this, proc, value);
    for (const to of links) this.signal(to, value, proc.pid);
  } else {
    for (const to of links) endedNormallyTo(this, to, proc.pid);
  }
  targetEnded(proc, died, value);
  if (proc.onExit) proc.onExit({ ok: !died, value });
}

/**
 * `from` returned normally and had a link to `to`: nothing is raised anywhere, but a
 * monitor's relay standing for a caller of `from` must hear of it — here at once,
 * elsewhere through an EXITED frame (one per link to another node, at a normal end
 * only). A `to` of this node that is dead is left alone.
 * @param {TermiteNode} node @param {Pid} to @param {Pid} from
 */
function endedNormallyTo(node, to, from) {
  const p = node.local(to);
  if (p !== null) linkedEndedNormally(node, p);
  else if (node.remote !== null && (to.node !== node.id || node.remote.isForwarded(to))) node.remote.exited(to, from);
}

/**
 * A process `proc` of this node was linked from one that returned normally (here or on
 * another node): a monitor's relay turns it into its notice, (%down tag normal); any
 * other process — one that traps exits included — is neither killed nor signalled.
 * @param {TermiteNode} node @param {Process} proc
 */
export function linkedEndedNormally(node, proc) {
  if (proc.handler !== null && proc.alive) relaySignal(proc, NORMAL);
}

/** The reason of a normal end, as a monitor's notice says it. */
const NORMAL = Sym.intern('normal');

/**
 * `terminate!`: end a process that may not cooperate. Its links receive a
 * 'terminated error.
 * @param {Pid} pid
 * @this {TermiteNode}
 */
export function terminate(pid) {
  const proc = this.local(pid);
  if (proc === null) {
    if (this.remote !== null) {
      this.remote.terminate(pid);
      rememberTerminated(this, pid);
    }
    return;
  }
  this.finish(proc, true, new ErrorObject('process terminated', new Pair(pid, null), 'terminated', 'terminate!'));
}

/**
 * Which local process an exit signal came from, by its payload (error objects only: a
 * symbol is shared by every raise of it), so a process that dies of a signal can say
 * whose it was.
 * @type {WeakMap<object, Pid>}
 */
const signalSenders = new WeakMap();

/**
 * The process whose death sent `payload` as an exit signal (when it was on this node),
 * or null: for a host reporting why its main process died.
 * @param {any} payload
 * @returns {Pid|null}
 */
export function signalSender(payload) {
  return payload instanceof ErrorObject ? signalSenders.get(payload) ?? null : null;
}

/**
 * The processes whose exit signals go to their host instead of being raised in them.
 * @type {WeakMap<Process, (payload: any, from: Pid|null) => void>}
 */
const trapping = new WeakMap();

/**
 * Make a process trap exits (what a REPL or `run` does for its main process, as erl's
 * shell reports `** exception exit: …`): an exit signal — a linked process died, its
 * node went — no longer kills it; `onExit(payload, from)` is called instead (`from`:
 * the pid of the process that died, when it was on this node; null otherwise), and
 * the process keeps its pid and its mailbox. `onExit` null: signals are raised again.
 * @param {TermiteNode} node @param {Pid} pid
 * @param {((payload: any, from: Pid|null) => void)|null} onExit
 */
export function trapExits(node, pid, onExit) {
  const proc = node.local(pid);
  if (proc === null) throw new Error(`trapExits: process ${pid.n} is not on this node`);
  if (onExit === null) trapping.delete(proc);
  else trapping.set(proc, onExit);
}

/**
 * How a trapped exit signal reads, as erl prints it: "** exception exit: <error> (from
 * process N)", then the frames of the process that died, one per line.
 * @param {any} payload @param {Pid|null} from
 */
export function describeExit(payload, from) {
  const lines = uncaughtBacktrace(payload, null);
  const what = payload instanceof ErrorObject ? describeError(payload, lines) : writeForReport(payload);
  const who = from === null ? '' : ` (from process ${from.n})`;
  const trace = formatBacktrace(lines);
  return `** exception exit: ${what}${who}${trace === '' ? '' : '\n' + trace.replace(/\n$/, '')}`;
}

/** Processes of other nodes this node terminated, remembered at most. */
const TERMINATED_KEPT = 4096;

/** Per node: the processes elsewhere it terminated, oldest first. @type {WeakMap<TermiteNode, Set<string>>} */
const terminatedElsewhere = new WeakMap();

/** @param {TermiteNode} node @param {Pid} pid */
function rememberTerminated(node, pid) {
  let set = terminatedElsewhere.get(node);
  if (set === undefined) terminatedElsewhere.set(node, (set = new Set()));
  set.add(`${pid.node}/${pid.n}`);
  if (set.size > TERMINATED_KEPT) set.delete(/** @type {string} */ (set.values().next().value));
}

/**
 * Whether this node terminated `pid`, a process elsewhere (`terminate!` is a one-way
 * frame: its node does not answer, so `process-alive?` asks here first).
 * @param {TermiteNode} node @param {Pid} pid
 */
export function wasTerminated(node, pid) {
  return terminatedElsewhere.get(node)?.has(`${pid.node}/${pid.n}`) ?? false;
}

/**
 * Log an unwatched process's death, within DEATH_LINES a second (see the header).
 * @param {TermiteNode} node @param {Process} proc @param {any} value
 */
function logDeath(node, proc, value) {
  const now = node.now();
  const d = node.deathLog;
  if (now - d.since >= 1000) {
    if (d.unlogged > 0) node.log(`${d.unlogged} more processes died in the last second (not logged one by one)`);
    d.since = now;
    d.lines = 0;
    d.unlogged = 0;
  }
  if (d.lines >= DEATH_LINES) {
    d.unlogged++;
    return;
  }
  d.lines++;
  const text = deathReport(proc, value);
  node.log(text);
  // the dashboard shows the last few on the node's card, with their frames
  const recent = node.recentDeaths;
  recent.push({ pid: `${proc.pid.n}@${proc.pid.node.slice(0, 8)}`, at: Date.now(), text: text.length > 2000 ? `${text.slice(0, 2000)}…` : text });
  if (recent.length > RECENT_DEATHS) recent.shift();
}

/** Deaths a node keeps for the dashboard (the lines logged, newest last). */
export const RECENT_DEATHS = 8;

/**
 * What a process died of, as logged: "process N died: <error, with its values>" and,
 * under it, the Scheme frames that led to it (one per line).
 * @param {Process} proc @param {any} value the uncaught payload
 */
export function deathReport(proc, value) {
  const lines = uncaughtBacktrace(value, proc);
  // a JS process (js-api.js) dies of a JS error's message
  const what = typeof value === 'string' ? value : describeError(value, lines);
  const trace = formatBacktrace(lines);
  return `process ${proc.pid.n} died: ${what}${trace === '' ? '' : '\n' + trace.replace(/\n$/, '')}`;
}
