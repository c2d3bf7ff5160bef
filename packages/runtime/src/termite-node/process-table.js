// @ts-check
/**
 * The process table of a node: creating processes (Scheme, JavaScript handlers, and
 * processes that migrated here), finding a process by pid or serial, retiring it, and
 * putting messages in mailboxes.
 *
 * Invariants:
 *  - a pid's serial is slot + uses * 2^21 (the slot in the core's process table, and how
 *    many processes that slot has held), so serials are never reused on a node (unlike
 *    the core's 11-bit generations) and a serial finds its process without a map
 *    (`bySlot`); processes that migrated here are `guests`, by "node/n";
 *  - a process is in the tables exactly while it is alive here; `pid.p` caches the
 *    local process a pid names and is cleared when it leaves the tables (in a realm
 *    with several nodes it may be another node's: `local` and `send` check `p.node`);
 *  - `send` copies the message (the sender may change its own value later);
 *    `deliver` does not: it is for values no one else holds (just decoded, or shipped
 *    with a migrating process);
 *  - limits (docs/security.md, "Limits"): a spawn beyond `maxProcesses` live processes
 *    on the node, or beyond `maxProcessesPerPeer` for the peer whose remote spawn the
 *    process descends from (`proc.peer`, inherited by local spawns), is refused with a
 *    `resource-limit` error and creates nothing; a message to a mailbox that holds
 *    `maxMailbox` messages or more is refused the same way (`!` raises it in the
 *    sender; `deliver` throws it to the distribution layer: docs/security.md, "Limits").
 *    The mailbox is measured every MAILBOX_CHECK messages sent to it, and at every one
 *    while it is full, so a mailbox may pass its limit by at most MAILBOX_CHECK - 1.
 *
 * These functions are TermiteNode's methods (`this` is the node), moved here whole.
 */
import { ACT_RETURN, rtEnv, chargeSince } from '@termite/scheme/internal';
import { Pair, ErrorObject, SchemeError, arrayToList } from '../scheme-data.js';
import { Pid, Tag } from '../termite-values.js';
import { copyMessage } from '../copy.js';
import { Process } from './process.js';

/** Arguments of a call without any: frozen, never written (the driver only reads args). */
const EMPTY_ARGS = /** @type {any[]} */ (/** @type {unknown} */ (Object.freeze([])));
/** The core's process table: 21 bits of slot index. */
const SLOTS = 0x200000;
export const SLOT_MASK = 0x1fffff;
/** A mailbox's length is read from the core once every this many messages sent to it. */
const MAILBOX_CHECK = 64;

/**
 * The limits of a node (NodeOptions.limits); each has a default that keeps a daemon alive.
 * @typedef {object} Limits
 * @property {number} [maxProcesses] live processes on the node (default 500,000)
 * @property {number} [maxProcessesPerPeer] live processes descending from one peer's remote spawns (default 100,000)
 * @property {number} [maxMailbox] messages queued for one process (default 500,000)
 * @property {number} [maxProcessHeap] bytes one process may hold, estimated (default 256 MiB; heap-limit.js)
 */
export const DEFAULT_LIMITS = Object.freeze({ maxProcesses: 500_000, maxProcessesPerPeer: 100_000, maxMailbox: 500_000, maxProcessHeap: 256 * 1048576 });

/**
 * The limits a node runs with: the defaults, with what `limits` sets (positive integers).
 * @param {Limits} [limits] @returns {Required<Limits>}
 */
export function nodeLimits(limits = {}) {
  const out = { ...DEFAULT_LIMITS };
  for (const [k, v] of Object.entries(limits)) {
    if (!(k in DEFAULT_LIMITS)) throw new TypeError(`unknown limit ${k}`);
    if (v === undefined) continue;
    if (!Number.isSafeInteger(v) || v < 1) throw new RangeError(`limit ${k} must be a positive integer, got ${v}`);
    /** @type {any} */ (out)[k] = v;
  }
  return out;
}

/**
 * The error a refused spawn or message raises: kind `resource-limit`.
 * @param {string} who @param {string} message @param {any[]} irritants
 */
export function resourceLimit(who, message, irritants) {
  return new SchemeError(new ErrorObject(message, arrayToList(irritants), 'resource-limit', who));
}

/** @typedef {import('@termite/scheme/internal').Thread} Thread */
/** @typedef {import('../termite-node.js').TermiteNode} TermiteNode */

/**
 * Start a process running `thunk` (a Scheme procedure of no arguments).
 * @param {any} thunk
 * @param {{params?: any, priority?: number, peer?: string|null}} [opts] params: the parent's
 *   parameter bindings; peer: the peer whose remote spawn this process descends from
 * @this {TermiteNode}
 */
export function spawn(thunk, opts = {}) {
  const peer = opts.peer ?? null;
  this.checkSpawn(peer);
  const proc = this.newProcess(opts.priority);
  if (peer !== null) countPeer(this, proc, peer);
  proc.clo = thunk;
  proc.name = thunk?.lam?.name ?? null;
  proc.args = EMPTY_ARGS;
  proc.params = opts.params ?? this.defaultParams();
  this.poke();
  return proc;
}

/**
 * Start a process that calls `procedure` with `args` (Scheme values).
 * @param {any} procedure @param {any[]} args
 * @this {TermiteNode}
 */
export function spawnCall(procedure, args) {
  this.checkSpawn(null);
  const proc = this.newProcess(2);
  proc.clo = procedure;
  proc.name = procedure?.lam?.name ?? null;
  proc.args = args;
  proc.params = this.defaultParams();
  this.poke();
  return proc;
}

/**
 * Start a process whose body is JavaScript: `handler(msg, proc)` is called for each
 * message, in order, from the scheduler.
 * @param {(msg: any, proc: Process) => void} handler
 * @this {TermiteNode}
 */
export function spawnHandler(handler) {
  const proc = this.newProcess(1);
  proc.handler = handler;
  proc.act = ACT_RETURN;
  this.poke();
  return proc;
}

/**
 * Refuse a spawn that would pass a process limit (a `resource-limit` error).
 * @param {string|null} peer @this {TermiteNode}
 */
export function checkSpawn(peer) {
  const { maxProcesses, maxProcessesPerPeer } = this.limits;
  if (this.live >= maxProcesses) {
    this.stats.refused++;
    throw resourceLimit('spawn', `too many processes on this node (limit ${maxProcesses})`, [maxProcesses]);
  }
  if (peer !== null && (this.byPeer.get(peer) ?? 0) >= maxProcessesPerPeer) {
    this.stats.refused++;
    throw resourceLimit('spawn', `too many processes spawned from peer ${peer.slice(0, 12)} (limit ${maxProcessesPerPeer})`, [maxProcessesPerPeer]);
  }
}

/** Count a new process against its peer. @param {TermiteNode} node @param {Process} proc @param {string} peer */
function countPeer(node, proc, peer) {
  proc.peer = peer;
  node.byPeer.set(peer, (node.byPeer.get(peer) ?? 0) + 1);
  node.joinGroup(proc, peer);
}

/** @param {number} [priority] @this {TermiteNode} */
export function newProcess(priority) {
  const cpid = this.core.spawn({ priority: priority ?? 2 });
  const slot = cpid & SLOT_MASK;
  if (slot >= this.slotUses.length) {
    const grown = new Uint32Array(Math.max(this.slotUses.length * 2, slot + 1));
    grown.set(this.slotUses);
    this.slotUses = grown;
  }
  const uses = ++this.slotUses[slot];
  const pid = new Pid(this.id, slot + uses * SLOTS);
  const proc = new Process(this, pid, cpid);
  pid.p = proc;
  this.byCore[slot] = proc;
  this.bySlot[slot] = proc;
  this.stats.spawned++;
  this.live++;
  return proc;
}

/**
 * Take over a process that migrated here: a new local process with the given pid and
 * thread state; it is ready to run. It counts against the peer it came from (its
 * process limit and CPU share), as one that peer spawned here would.
 * @param {Pid} pid @param {Thread} th @param {string|null} [peer] the node it came from
 * @this {TermiteNode}
 */
export function adopt(pid, th, peer = null) {
  this.checkSpawn(peer); // refused: the MIGRATE is answered with the error, the process stays where it was
  const cpid = this.core.spawn({ priority: 2 });
  const proc = new Process(this, pid, cpid);
  if (peer !== null) countPeer(this, proc, peer);
  for (const f of ['act', 'clo', 'args', 'val', 'k', 'winders', 'handlers', 'params']) /** @type {any} */ (proc)[f] = /** @type {any} */ (th)[f];
  this.guests.set(`${pid.node}/${pid.n}`, proc);
  this.byCore[cpid & SLOT_MASK] = proc;
  this.stats.spawned++;
  this.live++;
  this.poke();
  return proc;
}

/**
 * Remove a process that left this node (migrated): no exit signals, no links fired.
 * @param {Process} proc
 * @this {TermiteNode}
 */
export function retire(proc) {
  if (!proc.alive) return;
  proc.alive = false;
  proc.waiting = null;
  this.core.exit(proc.cpid);
  this.forget(proc);
  proc.k = null;
}

/** Drop a process from the tables (once: its end or its departure). @param {Process} proc @this {TermiteNode} */
export function forget(proc) {
  this.live--;
  proc.copyJob = null; // a `!` copying when it ended or left: its partial copy is dropped
  if (this.fullMailboxes.size > 0) this.fullMailboxes.delete(proc);
  if (proc.peer !== null) {
    const n = /** @type {number} */ (this.byPeer.get(proc.peer)) - 1;
    if (n > 0) this.byPeer.set(proc.peer, n);
    else this.byPeer.delete(proc.peer);
    this.leaveGroup(proc);
  }
  if (this.byCore[proc.cpid & SLOT_MASK] === proc) this.byCore[proc.cpid & SLOT_MASK] = undefined;
  const slot = proc.pid.n % SLOTS;
  if (proc.pid.node === this.id && this.bySlot[slot] === proc) this.bySlot[slot] = undefined;
  if (this.guests.size > 0) {
    // only a process that migrated here is a guest: no key string for the others
    const k = `${proc.pid.node}/${proc.pid.n}`;
    if (this.guests.get(k) === proc) this.guests.delete(k);
  }
  if (proc.pid.p === proc) proc.pid.p = null;
}

/** Parameter bindings of a process started by the node itself: output to the stdout process. @this {TermiteNode} */
export function defaultParams() {
  const key = rtEnv.cell('current-output-port').v.fv[0];
  return new Pair(new Pair(key, this.stdoutPort), null);
}

/**
 * The local process a pid names, or null.
 * @param {Pid} pid
 * @returns {Process|null}
 * @this {TermiteNode}
 */
export function local(pid) {
  // pid.p may be another node's process when a realm holds several nodes (realm-nodes.js)
  if (pid.p !== null && pid.p.alive && pid.p.node === this) return pid.p;
  if (pid.node === this.id) {
    const native = this.bySerialNumber(pid.n);
    if (native !== null) return native;
  }
  if (this.guests.size === 0) return null;
  const guest = this.guests.get(`${pid.node}/${pid.n}`);
  return guest !== undefined && guest.alive ? guest : null;
}

/**
 * The live process with this serial, or null.
 * @param {number} n
 * @returns {Process|null}
 * @this {TermiteNode}
 */
export function bySerialNumber(n) {
  const proc = this.bySlot[n % SLOTS];
  return proc !== undefined && proc.pid.n === n && proc.alive ? proc : null;
}

/**
 * `!`: deliver a copy of msg to pid's mailbox; never blocks, silently drops a
 * message to a process that does not exist ("send and pray"). A message for another
 * node goes to `remote`, whose answer is returned: false when it waits for room in the
 * mesh's queue (the sender should wait, remote-ops.js); undefined for a local one.
 * @param {Pid} pid @param {any} msg
 * @returns {boolean | undefined}
 * @this {TermiteNode}
 */
export function send(pid, msg) {
  this.stats.messages++;
  const p = pid.p;
  const proc = p !== null && p.alive && p.node === this ? p : this.local(pid);
  if (proc !== null) {
    if ((++proc.sent & (MAILBOX_CHECK - 1)) === 0) this.checkMailbox(proc, '!');
    this.core.send(proc.cpid, copyMessage(msg));
    return;
  }
  // not here (any more): another node's, or one that migrated away; encoding it is
  // charged to the sending slice by its time (docs/processes.md, "Fairness")
  if (this.remote !== null) {
    const t0 = performance.now();
    const accepted = this.remote.send(pid, msg);
    chargeSince(t0);
    return accepted;
  }
}

/** A fresh universally unique tag. @this {TermiteNode} */
export function makeTag() {
  return new Tag(this.id, ++this.tagSerial);
}

/**
 * Put a message in a local process's mailbox, as it is (no copy: see the file header).
 * @param {Process} proc @param {any} msg @param {string} [who] the procedure a full mailbox's error names
 * @this {TermiteNode}
 */
export function deliver(proc, msg, who = 'deliver') {
  if ((++proc.sent & (MAILBOX_CHECK - 1)) === 0) this.checkMailbox(proc, who);
  this.core.send(proc.cpid, msg);
}

/**
 * Refuse a message to a mailbox at its limit (a `resource-limit` error, logged once
 * each time the mailbox fills); a full mailbox is measured again at the next message
 * (its count is set back by one), until it has room.
 * @param {Process} proc @param {string} who
 * @this {TermiteNode}
 */
export function checkMailbox(proc, who) {
  const max = this.limits.maxMailbox;
  const n = this.core.mailboxSize(proc.cpid);
  if (n < max) {
    this.fullMailboxes.delete(proc);
    return;
  }
  this.stats.refused++;
  proc.sent--;
  if (!this.fullMailboxes.has(proc)) {
    this.fullMailboxes.add(proc);
    this.log(`mailbox of process ${proc.pid.n} is full (${n} messages, limit ${max}): messages to it are refused until it has room`);
  }
  throw resourceLimit(who, `mailbox of process ${proc.pid.n} is full (limit ${max} messages)`, [proc.pid, max]);
}

/**
 * The first message in a process's mailbox at sequence number `seq` or later, left
 * there, with its own sequence number; undefined when there is none.
 * @param {Process} proc @param {number} seq
 * @returns {{value: any, seq: number} | undefined}
 * @this {TermiteNode}
 */
export function peekMessage(proc, seq) {
  return this.core.peek(proc.cpid, seq);
}
