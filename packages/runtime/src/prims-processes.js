// @ts-check
/**
 * The Termite process primitives (docs/processes.md, "The Termite API"; Termite paper §2–§4).
 *
 * Primitives that never block are registered as ordinary primitives (the compiler
 * calls them directly): self, make-tag, spawn, links, ... `!` is a resumable builtin
 * (its copy of a big message is done in chunks, the sender suspended between them). Those that may block — `?`,
 * the selective-receive wait, sleep — are control procedures: when they must wait they
 * put the process to sleep in the C core (which will wake it on a message, a tuple, a
 * timeout or an interrupt), record in `proc.waiting` how it resumes, and unwind the
 * thread; the node's loop resumes it when the core says so.
 */
import { R, unwind, PEND_SUSPEND, definePrimitive, defineBuiltin, defineResumable, defineStep, more, arity, charge } from '@termite/scheme/internal';
import { VOID, Closure, Flonum, Ratnum, schemeErrorOf, SchemeError, Sym, ErrorObject, arrayToList } from './scheme-data.js';
import { displayString, current as currentPorts } from '@termite/scheme/internal';
import { Pid, Tag, NodeRef } from './termite-values.js';
import { W_RECEIVE, W_SCAN, W_SLEEP } from './termite-node/process.js';
import { wasTerminated } from './termite-node/links-and-signals.js';
import { BLOCKED, TIMED_OUT } from '@termite/core';
import { beginCopy, CopyJob } from './copy-job.js';

/**
 * The running process.
 * @param {string} who
 * @returns {import('./termite-node.js').Process}
 */
export function current(who) {
  const th = R.thread;
  const proc = th === null ? null : th.owner;
  if (proc === null || proc === undefined) return schemeErrorOf('context', who, 'must be called from a Termite process');
  return proc;
}

/** @param {any} x @param {string} who */
export function checkPid(x, who) {
  if (!(x instanceof Pid)) schemeErrorOf('type', who, 'expected a process id', x);
  return x;
}

/**
 * Seconds (any real) → milliseconds, or Infinity.
 * @param {any} x @param {string} who
 */
export function seconds(x, who) {
  let s;
  if (typeof x === 'number') s = x;
  else if (x instanceof Flonum) s = x.v;
  else if (x instanceof Ratnum) s = Number(x.num) / Number(x.den);
  else if (typeof x === 'bigint') s = Number(x);
  else return schemeErrorOf('type', who, 'expected a timeout in seconds', x);
  if (Number.isNaN(s) || s < 0) schemeErrorOf('range', who, 'expected a non-negative timeout in seconds', x);
  return s * 1000;
}

// ------------------------------------------------------------------ identity

definePrimitive('self', 0, 0, () => current('self').pid);
definePrimitive('pid?', 1, 1, (/** @type {any} */ x) => x instanceof Pid, { pure: true });
definePrimitive('tag?', 1, 1, (/** @type {any} */ x) => x instanceof Tag, { pure: true });
definePrimitive('node?', 1, 1, (/** @type {any} */ x) => x instanceof NodeRef, { pure: true });
definePrimitive('make-tag', 0, 0, () => current('make-tag').node.makeTag());
definePrimitive('current-node', 0, 0, () => current('current-node').node.ref);
definePrimitive('pid-node', 1, 1, (/** @type {any} */ pid) => {
  const node = current('pid-node').node;
  checkPid(pid, 'pid-node');
  if (pid.node === node.id) return node.ref;
  return node.remote?.nodeRefOf(pid.node) ?? new NodeRef(pid.node, null, null);
});

// ------------------------------------------------------------------ sending

/**
 * `(! pid msg)`. A message for a local process is copied here: in one call when it fits
 * a chunk (copy-job.js); a bigger one a chunk per call of `%!/step`, the sender
 * suspended between chunks (each is a point where the scheduler may preempt), and put
 * in the mailbox whole when the copy ends. The `!` has not happened before that, so
 * nothing the sender does later can overtake it. The job is kept beside the state
 * (`proc.copyJob`), named in it by a key: a thread serialized between chunks (a drain,
 * a snapshot) carries only (pid msg key); where it resumes no job has that key, so the
 * `!` starts again from scratch there, and the message is sent once, from there.
 */
defineResumable('!', 2, 0, (/** @type {any} */ pid, /** @type {any} */ msg) => send(current('!'), checkPid(pid, '!'), msg));

const sendStep = defineStep('!', 3, (/** @type {any} */ pid, /** @type {any} */ msg, /** @type {any} */ key) => {
  const proc = current('!');
  const job = proc.copyJob;
  if (job !== null && job.key === key && job.pid === pid && job.root === msg) return copyOn(proc, job);
  return send(proc, checkPid(pid, '!'), msg); // resumed elsewhere, or a forged state: the `!` from scratch
});

/** Keys of copy jobs (unique per node; a fixnum in the step's state). */
let jobKeys = 0;

/**
 * @param {import('./termite-node.js').Process} proc the sender @param {Pid} pid @param {any} msg
 */
function send(proc, pid, msg) {
  const node = proc.node;
  const to = node.local(pid);
  if (to === null) return sendAway(proc, pid, msg);
  if (to.peer !== proc.peer && to.peer !== null) node.remote?.giveToProcessOf(to.peer, msg, proc.peer); // acts as that peer elsewhere (capabilities.js)
  const copy = beginCopy(msg);
  if (copy instanceof CopyJob) {
    copy.key = ++jobKeys;
    copy.pid = pid;
    proc.copyJob = copy;
    return more(sendStep, [pid, msg, copy.key]);
  }
  node.stats.messages++;
  node.deliver(to, copy, '!');
  return VOID;
}

/** One more chunk of a copy; the message delivered when it is done. @param {any} proc @param {CopyJob} job */
function copyOn(proc, job) {
  if (!job.run()) return more(sendStep, [job.pid, job.root, job.key]);
  proc.copyJob = null;
  const node = proc.node;
  const to = node.local(job.pid);
  if (to === null) return sendAway(proc, job.pid, job.result); // the receiver left or died meanwhile
  node.stats.messages++;
  node.deliver(to, job.result, '!');
  return VOID;
}

/**
 * A message for a process not here (another node's, or gone). When the mesh's queue to
 * its node has no room (false), the slice ends at the next reduction (no fuel left) and
 * the scheduler keeps the process suspended until its frames have left (holdSender):
 * later sends cannot overtake it, and a fast sender waits instead of losing messages.
 * @param {any} proc @param {Pid} pid @param {any} msg
 */
function sendAway(proc, pid, msg) {
  if (proc.node.send(pid, msg) === false) {
    proc.sendBlocked = true;
    R.fuel = 0;
  }
  return VOID;
}

// ------------------------------------------------------------------ spawning and links

/** @param {any} thunk @param {string} who */
function spawnFrom(thunk, who) {
  const proc = current(who);
  if (!(thunk instanceof Closure)) schemeErrorOf('type', who, 'expected a procedure of no arguments', thunk);
  // a process spawned by one that descends from a peer's remote spawn counts against that peer
  return proc.node.spawn(thunk, { params: proc.params, peer: proc.peer });
}

definePrimitive('spawn', 1, 1, (/** @type {any} */ thunk) => spawnFrom(thunk, 'spawn').pid);
definePrimitive('spawn-link', 1, 1, (/** @type {any} */ thunk) => {
  const me = current('spawn-link');
  const child = spawnFrom(thunk, 'spawn-link');
  me.node.addLink(me.pid, child.pid);
  me.node.addLink(child.pid, me.pid);
  return child.pid;
});

/** @param {string} name @param {(node: any, me: Pid, other: Pid) => void} f */
function linkPrimitive(name, f) {
  definePrimitive(name, 1, 1, (/** @type {any} */ pid) => {
    const me = current(name);
    f(me.node, me.pid, checkPid(pid, name));
    return VOID;
  });
}
// Termite's directed links: an outbound link carries *my* uncaught exception to the other.
linkPrimitive('outbound-link', (node, me, other) => node.addLink(me, other));
linkPrimitive('inbound-link', (node, me, other) => node.addLink(other, me));
linkPrimitive('full-link', (node, me, other) => {
  node.addLink(me, other);
  node.addLink(other, me);
});
linkPrimitive('link', (node, me, other) => {
  node.addLink(me, other);
  node.addLink(other, me);
});
linkPrimitive('unlink', (node, me, other) => {
  node.removeLink(me, other);
  node.removeLink(other, me);
});

definePrimitive('process-alive?', 1, 1, (/** @type {any} */ pid) => {
  const node = current('process-alive?').node;
  checkPid(pid, 'process-alive?');
  if (pid.node === node.id) return node.local(pid) !== null;
  return !wasTerminated(node, pid) && (node.remote?.isAlive(pid) ?? true);
});

// ------------------------------------------------------------------ receiving

/**
 * `(? [timeout [default]])`: the oldest message. With a timeout (seconds) and no
 * message by then: the default, or the symbol `timeout` is raised.
 * @this {Closure} the ? procedure
 */
function receiveCode(/** @type {number} */ _d, /** @type {any} */ timeout, /** @type {any} */ dflt) {
  const n = arguments.length - 1;
  if (n > 2) return arity(this, n);
  const proc = current('?');
  const node = proc.node;
  if (proc.signalled) throw raiseSignal(proc);
  const timeoutAt = n >= 1 ? node.now() + seconds(timeout, '?') : Infinity;
  const msg = node.core.receiveOrWait(proc.cpid, timeoutAt);
  if (msg === BLOCKED) {
    proc.waiting = n === 2 ? { kind: W_RECEIVE, hasDefault: true, dflt } : n === 1 ? TIMED_RECEIVE : PLAIN_RECEIVE;
    return unwind(PEND_SUSPEND, proc.waiting);
  }
  if (msg !== TIMED_OUT) return msg;
  if (n === 2) return dflt;
  throw raiseValue(TIMEOUT_SYMBOL());
}
defineBuiltin('?', receiveCode, 0, 2);
const PLAIN_RECEIVE = Object.freeze({ kind: W_RECEIVE, hasDefault: false, dflt: null });
const TIMED_RECEIVE = Object.freeze({ kind: W_RECEIVE, hasDefault: false, dflt: null, timed: true }); // a drain leaves it (distribution/drain.js)
const SCAN = Object.freeze({ kind: W_SCAN });

/** `(%mbox-peek cursor)` → #(seq message) for the oldest message with seq ≥ cursor, or #f. */
definePrimitive('%mbox-peek', 1, 1, (/** @type {any} */ cursor) => {
  const proc = current('recv');
  const m = proc.node.core.peek(proc.cpid, cursor);
  return m === undefined ? false : [m.seq, m.value];
});
/** `(%mbox-take seq)` removes that message. */
definePrimitive('%mbox-take', 1, 1, (/** @type {any} */ seq) => {
  const proc = current('recv');
  const v = proc.node.core.take(proc.cpid, seq);
  return v === undefined ? false : v;
});
/** `(%deadline seconds-or-#f)` → the absolute time (ms) a wait should end, or #f. */
definePrimitive('%deadline', 1, 1, (/** @type {any} */ s) => {
  if (s === false) return false;
  const proc = current('recv');
  const ms = seconds(s, 'recv');
  const now = proc.node.now();
  // integral ms (exact integers in Scheme); a zero timeout means "already passed"
  return ms === 0 ? Math.floor(now) - 1 : ms === Infinity ? false : Math.ceil(now + ms);
});

/**
 * `(%mbox-wait cursor deadline)`: wait for a message with seq ≥ cursor; #t when one
 * arrived, #f when the deadline (ms, or #f: none) passed.
 */
function mboxWaitCode(/** @type {number} */ _d, /** @type {any} */ cursor, /** @type {any} */ deadline) {
  const proc = current('recv');
  if (proc.signalled) throw raiseSignal(proc);
  const w = proc.node.core.waitMessage(proc.cpid, { cursor, timeoutAt: deadline === false ? Infinity : deadline });
  if (w === 'ready') return true;
  if (w === 'timeout') return false;
  proc.waiting = SCAN;
  return unwind(PEND_SUSPEND, proc.waiting);
}
defineBuiltin('%mbox-wait', mboxWaitCode, 2, 0);

/** `(sleep seconds)`: let other processes run for that long. */
function sleepCode(/** @type {number} */ _d, /** @type {any} */ s) {
  const proc = current('sleep');
  const node = proc.node;
  if (proc.signalled) throw raiseSignal(proc);
  const blocked = node.core.sleep(proc.cpid, node.now() + seconds(s, 'sleep'));
  if (!blocked) return VOID;
  proc.waiting = { kind: W_SLEEP, value: VOID };
  return unwind(PEND_SUSPEND, proc.waiting);
}
defineBuiltin('sleep', sleepCode, 1, 0);

definePrimitive('terminate!', 1, 1, (/** @type {any} */ pid) => {
  const me = current('terminate!');
  checkPid(pid, 'terminate!');
  if (pid.node === me.pid.node && pid.n === me.pid.n) throw raiseValue(terminatedError(pid));
  me.node.terminate(pid);
  return VOID;
});

// ------------------------------------------------------------------ output helpers of the papers

definePrimitive('print', 0, -1, (/** @type {any[]} */ ...xs) => {
  for (const x of xs) writeOut(displayString(x));
  return VOID;
});
definePrimitive('println', 0, -1, (/** @type {any[]} */ ...xs) => {
  for (const x of xs) writeOut(displayString(x));
  writeOut('\n');
  return VOID;
});
definePrimitive('timeout?', 1, 1, (/** @type {any} */ x) => x === TIMEOUT_SYMBOL());
definePrimitive('%log', 1, 1, (/** @type {any} */ text) => {
  current('log').node.log(typeof text === 'string' ? text : displayString(text));
  return VOID;
});

// ------------------------------------------------------------------ helpers

/** @param {string} s */
function writeOut(s) {
  charge(s.length * 4); // printing costs ~50 ns a character (engine.js built)
  const port = currentPorts.outputPort();
  port.writeText(s);
}

const TIMEOUT_SYMBOL = () => Sym.intern('timeout');

/** @param {any} v */
function raiseValue(v) {
  return new SchemeError(v);
}

/** The oldest pending exit signal, as a JS exception the driver raises in Scheme. @param {any} proc */
function raiseSignal(proc) {
  return new SchemeError(proc.takeSignal());
}

/** @param {Pid} pid */
function terminatedError(pid) {
  return new ErrorObject('process terminated', arrayToList([pid]), 'terminated', 'terminate!');
}
