// @ts-check
/**
 * The scheduler loop of a node, and blocking. There is one scheduler, the C core's:
 * this loop only asks it which process runs next (`core.next()`), runs that process's
 * thread for a time slice of reductions, and reports back (yield, or the process
 * already blocked itself in the core from inside a primitive, or it ended). The loop
 * gives the JS event loop a turn every few milliseconds, sleeps until the earliest
 * timer when nothing is ready, and is woken by `poke()` when something outside (the JS
 * API, the network) makes a process ready.
 *
 * Invariants:
 *  - a process is in exactly one of: running (inside runProcess), ready or waiting in
 *    the core, or exited (removed from the process table);
 *  - the loop never re-enters itself (`looping`); a run at the end of a task is queued
 *    at most once (`runQueued`), a run in a later task at most once (`scheduled`):
 *    a run started directly (at the end of a task) leaves a pending later run in place
 *    rather than queueing another, so there is one chain of later runs, whatever
 *    started runs meanwhile (two chains would each take LOOP_MS of every event-loop
 *    turn: a remote spawn used to add one);
 *  - a process woken by the core resumes as its `waiting` says (prepareWake), pending
 *    exit signals first;
 *  - at most one wake-up timer is armed, for a time no later than the earliest deadline;
 *  - while processes of more than one owner want to run, each owner's group gets about
 *    the same run time (fair-share.js): a process of a group over its quota is put back
 *    without running.
 *
 * These functions are TermiteNode's methods (`this` is the node), moved here whole:
 * the loop keeps the code it was measured with.
 */
import { R, runSlice, ACT_CALL, ACT_RETURN, SLICE_YIELD, SLICE_DONE, SLICE_SUSPENDED, SLICE_DIED, rtEnv } from '@termite/scheme/internal';
import { ErrorObject, Sym } from '../scheme-data.js';
import { soon } from '../soon.js';
import { W_RECEIVE, W_SCAN, W_TUPLE, W_SLEEP, W_EXTERNAL, W_SEND } from './process.js';
import { SLOT_MASK } from './process-table.js';
import { removeNode } from './realm-nodes.js';
import { QUOTA } from './fair-share.js';

/** A clock the node never advances: a wait on it ends only by interrupt. */
const CLOCK_NEVER = 3;

/** Reductions in a time slice (Erlang uses 4,000 reductions). */
const FUEL = 4000;
/** Longest run of the scheduler before the event loop gets a turn (ms). */
const LOOP_MS = 8;
/** Cheap reductions in a millisecond (engine.js chargeSince): time spent, as fuel. */
const REDUCTIONS_PER_MS = 300_000;
/**
 * At most this many times its fuel is a slice charged for its time: a walk beyond the
 * caches costs 5-10 times its fuel; a slice stopped by the OS for a 4 ms time slice
 * on a loaded machine would cost 300 times, to whichever group ran last.
 */
const EXCESS_MAX = 16;

const TIMEOUT = Sym.intern('timeout');

/** How a process held by holdSender waits (prepareWake resumes it as it was). */
const SEND_WAIT = Object.freeze({ kind: W_SEND });

/** A settled promise: its then() queues a microtask. */
const SETTLED = Promise.resolve();

/** @typedef {import('./process.js').Process} Process */
/** @typedef {import('@termite/scheme/internal').Thread} Thread */
/** @typedef {import('../termite-node.js').TermiteNode} TermiteNode */

/**
 * Block the running process until an external answer (resumeExternal) or an
 * interrupt. Returns the unwind the primitive must return.
 * @param {Process} proc @param {any} info
 * @this {TermiteNode}
 */
export function blockExternal(proc, info) {
  proc.waiting = { kind: W_EXTERNAL, info };
  proc.external = null;
  this.core.sleep(proc.cpid, 1e300, { clock: CLOCK_NEVER });
}

/**
 * Whether the core has the process in one of its waiting states (not ready or
 * running: a process woken in this turn is ready while proc.waiting is still set).
 * @param {Process} proc
 * @this {TermiteNode}
 */
export function isWaiting(proc) {
  return this.core.state(proc.cpid).startsWith('waiting');
}

/**
 * Deliver the answer a process blocked with blockExternal is waiting for.
 * @param {Process} proc @param {{value?: any, raise?: any}} answer
 * @this {TermiteNode}
 */
export function resumeExternal(proc, answer) {
  if (!proc.alive || proc.waiting === null || proc.waiting.kind !== W_EXTERNAL) return false;
  proc.external = answer;
  if (this.isWaiting(proc)) this.core.interrupt(proc.cpid);
  // in this task, like a message from the network: the answer of a remote call arrives
  // in a promise reaction, and a poke() would run the process only a task later (a
  // remote spawn's caller spent ~13 µs a spawn in that setImmediate turn)
  this.pokeAfterTask();
  return true;
}

/**
 * A process whose `!` put a frame in an outbox (the mesh's queue to that node was full)
 * ended its slice at its next reduction (prims-processes.js): keep it suspended until
 * its frames have left (resumeSender), unless they already have. False: yield as usual.
 * @param {Process} proc
 * @this {TermiteNode}
 */
export function holdSender(proc) {
  proc.sendBlocked = false;
  if (this.remote === null || !this.remote.mustWait(proc)) return false;
  proc.waiting = SEND_WAIT;
  this.core.sleep(proc.cpid, 1e300, { clock: CLOCK_NEVER });
  this.stats.sendHolds++;
  return true;
}

/**
 * The frames a process held by holdSender waited for have left (or failed: then an
 * exit signal is queued in it, and raised where it was suspended).
 * @param {Process} proc
 * @this {TermiteNode}
 */
export function resumeSender(proc) {
  if (!proc.alive || proc.waiting === null || proc.waiting.kind !== W_SEND) return;
  if (this.isWaiting(proc)) this.core.interrupt(proc.cpid);
  this.pokeAfterTask();
}

/** Make sure the scheduler loop will run soon. @this {TermiteNode} */
export function poke() {
  if (this.scheduled || this.stopped) return;
  this.scheduled = true;
  soon(this.runSoon); // whose run cancels the pending timer, if any
}

/**
 * Run the scheduler at the end of the current task, for a message that arrived from
 * the network: that event's task has nothing else to do, so waiting for poke()'s
 * next task (a MessageChannel round in a browser worker) would only add latency to
 * every remote round trip. Microtasks never interrupt running JS, so this cannot
 * re-enter the loop; the loop itself still yields to the event loop by poke().
 * @this {TermiteNode}
 */
export function pokeAfterTask() {
  if (this.runQueued || this.stopped) return;
  this.runQueued = true;
  // a reaction of a settled promise, not queueMicrotask: Node wraps each
  // queueMicrotask callback in a new AsyncResource (~0.3 µs a message here)
  SETTLED.then(this.afterTask);
}

/**
 * Do now the run that pokeAfterTask queued, if any: called by the network's receive
 * path once a frame is handled, at the outermost point of this package's code on
 * the stack. The reply then leaves before the transport finishes its own
 * bookkeeping for the message (ws's stream callbacks and ticks, ~3 µs a message on
 * the daemon), which otherwise runs first, on the round trip's critical path.
 * Never re-enters a running loop: a frame handled during a process's step (a
 * transport that delivers synchronously) waits for the queued microtask.
 * @this {TermiteNode}
 */
export function runArrivedNow() {
  if (this.runQueued && !this.looping) this.runAfterTask();
}

/**
 * A message from the network was just put in a mailbox, at the outermost point of
 * this package's code on the stack: run the loop now (as pokeAfterTask then
 * runArrivedNow would, without queueing the microtask that would find nothing to do),
 * or, if the loop is on the stack (a transport that delivers synchronously), after it.
 * @this {TermiteNode}
 */
export function runDelivered() {
  if (this.looping || this.stopped) this.pokeAfterTask();
  else this.runAfterTask();
}

/** Run the loop for pokeAfterTask; an error escapes as from queueMicrotask, uncaught. @this {TermiteNode} */
export function runAfterTask() {
  this.runQueued = false;
  // The node is busy (its last loop ran out of time with processes still ready) and a
  // run is due in a later task, which will take the new arrival. Running now as well
  // would let each message of a received chunk run the loop for up to LOOP_MS: a chunk
  // of 500 messages beside a process that allocates kept the event loop for seconds
  // (heartbeats lost, /health unanswered).
  if (this.overran && this.scheduled) return;
  try {
    this.runLoop();
  } catch (e) {
    queueMicrotask(() => {
      throw e;
    });
  }
}

/** Run ready processes for up to LOOP_MS, then give the event loop a turn. @this {TermiteNode} */
export function runLoop() {
  if (this.stopped) return;
  const core = this.core;
  const start = this.now();
  core.advance(0, start);
  this.looping = true;
  try {
    this.runReady(start);
  } finally {
    this.looping = false;
    const remote = /** @type {any} */ (this.remote); // an out to another node's space held back leaves (distribution/destination-holds.js)
    if (remote !== null && remote.holdCount > 0) remote.releaseFirstHold(); // (a stand-in RemoteOps has no holds)
  }
  if (this.stopped) return;
  const end = this.now();
  this.noteBusy(start, end);
  this.guardHeap(end);
  if (this.stopped) return;
  this.reschedule();
}

/**
 * runLoop's body: ready processes, until none is left or LOOP_MS passed. The clock is
 * read once the slices run since the last reading spent a slice's fuel (primitives
 * charge fuel for the work they do, engine.js `charge`), so the loop overruns LOOP_MS
 * by at most about one slice, whatever the processes run; short slices (a process
 * that receives, answers and waits) cost no clock reading each.
 * @param {number} start @this {TermiteNode}
 */
export function runReady(start) {
  const core = this.core;
  let spent = 0;
  let read = start;
  /** @type {import('./fair-share.js').OwnerGroup|null} the group of the last slice run */
  let last = null;
  if (this.owing.length > 0 || this.roundGroups.length > 0) this.endRound(0); // a round lasts one run at most
  R.buildCap = this.buildCap; // what one primitive call may build here (heap-limit.js)
  for (let i = 1; ; i++) {
    if (spent >= FUEL || (i & 31) === 0) {
      const t = this.now();
      // a slice that took longer than its fuel says (a primitive over data beyond the
      // CPU's caches) costs its group the time it took (fair-share.js), up to EXCESS_MAX
      // times its fuel: the time the OS gave other programs is no group's
      if (spent >= FUEL && last !== null) {
        const excess = Math.min((t - read) * REDUCTIONS_PER_MS - spent, EXCESS_MAX * spent);
        if (excess > FUEL) this.charged(last, Math.floor(excess));
      }
      spent = 0;
      read = t;
      if (t - start > LOOP_MS) {
        this.overran = true;
        break;
      }
      core.advance(0, t);
    }
    const cpid = core.next();
    if (cpid === 0) {
      this.overran = false;
      break;
    }
    const proc = this.byCore[cpid & SLOT_MASK];
    if (proc === undefined || proc.cpid !== cpid) {
      core.exit(cpid);
      continue;
    }
    // its owner's group had its share of this round (fair-share.js): to the back of the queue
    const g = proc.group;
    if (g.spent >= QUOTA && this.putBack(proc, core.wakeReason)) continue;
    R.fuel = FUEL; // what a process that runs no slice (a handler) leaves spent: nothing
    R.over = 0;
    this.runProcess(proc, core.wakeReason);
    const used = FUEL - R.fuel + R.over;
    spent += used;
    if (used > 0) this.charged(g, used);
    last = g;
    this.putBacks = 0;
    if ((proc.work += used) >= proc.heapCheckAt) this.checkHeap(proc);
    if (this.stopped) return;
  }
}

/** @this {TermiteNode} */
export function reschedule() {
  if (this.stopped) return;
  const { ready } = this.core.processStats();
  if (ready > 0) {
    this.poke();
    return;
  }
  const next = this.core.nextTimer(0);
  const timer = this.timer;
  if (!Number.isFinite(next)) {
    // nothing to wake for: an armed timer may fire for nothing later, but must not
    // keep a Node process alive meanwhile
    if (timer !== null) timer.unref?.();
    return;
  }
  // A timer that fires no later than the deadline is kept: a run it starts early
  // re-arms it. Processes that wait with a timeout and get their message in time
  // (a receive with `after`, a remote call) then cost no timer each: a setTimeout and
  // a clearTimeout per wait showed in every remote spawn's profile.
  if (timer !== null && this.timerAt <= next) {
    timer.ref?.();
    return;
  }
  if (timer !== null) clearTimeout(timer);
  this.timerAt = next;
  this.timer = setTimeout(this.onTimer, Math.max(0, Math.ceil(next - this.now())));
}

/**
 * Run one process for one slice.
 * @param {Process} proc @param {string} reason why the core made it ready
 * @this {TermiteNode}
 */
export function runProcess(proc, reason) {
  if (proc.handler !== null) {
    this.runHandler(proc);
    return;
  }
  const th = proc;
  if (proc.waiting !== null) this.prepareWake(proc, th, reason);
  // messages it sent were dropped (send-queue.js): raised as its slice starts, not at
  // a receive it may never reach (other exit signals wait for its next receive)
  else if (proc.signals !== null && proc.signals.length > 0 && proc.signals[0]?.kind === 'send') raiseIn(th, proc.takeSignal());
  this.stats.slices++;
  const r = runSlice(th, FUEL);
  if (!proc.alive) return; // terminated while running (terminate! on itself)
  switch (r) {
    case SLICE_YIELD:
      if (proc.sendBlocked && this.holdSender(proc)) return;
      this.core.yield(proc.cpid);
      return;
    case SLICE_SUSPENDED:
      return; // the primitive blocked it in the core and set proc.waiting
    case SLICE_DONE:
      this.finish(proc, false, th.val);
      return;
    case SLICE_DIED:
      this.finish(proc, true, th.val);
      return;
  }
}

/**
 * Deliver a handler process's messages to its handler; then (when the scheduler is
 * running it) it waits for more.
 * @param {Process} proc @param {boolean} [scheduled]
 * @this {TermiteNode}
 */
export function runHandler(proc, scheduled = true) {
  const handler = /** @type {(msg: any, proc: Process) => void} */ (proc.handler);
  for (let n = 0; n < 100000; n++) {
    const msg = this.core.receive(proc.cpid);
    if (msg === undefined) break;
    try {
      handler(msg, proc);
    } catch (e) {
      this.log(`handler process ${proc.pid.n} failed on a message: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  if (proc.alive && scheduled) {
    const w = this.core.waitMessage(proc.cpid, {});
    if (w === 'ready') this.core.yield(proc.cpid);
  }
}

/**
 * A blocked process was woken by the core: set its thread up to continue.
 * @param {Process} proc @param {Thread} th @param {string} reason
 * @this {TermiteNode}
 */
export function prepareWake(proc, th, reason) {
  const w = proc.waiting;
  proc.waiting = null;
  if (reason === 'interrupt' && w.kind === W_EXTERNAL && proc.external !== null) {
    const answer = proc.external;
    proc.external = null;
    if ('raise' in answer) return raiseIn(th, answer.raise);
    return returnTo(th, answer.value);
  }
  if (proc.signalled) return raiseIn(th, proc.takeSignal());
  switch (w.kind) {
    case W_RECEIVE: {
      if (reason === 'message') {
        const msg = this.core.receive(proc.cpid);
        if (msg !== undefined) return returnTo(th, msg);
      }
      if (w.hasDefault) return returnTo(th, w.dflt);
      return raiseIn(th, TIMEOUT);
    }
    case W_SCAN:
      return returnTo(th, reason === 'message');
    case W_TUPLE:
      return w.resume(th, reason);
    case W_SLEEP:
      return returnTo(th, w.value);
    case W_SEND:
      return; // the thread continues where its slice ended
    default:
      return raiseIn(th, new ErrorObject(`woken without an answer (${reason})`, null, 'internal', null));
  }
}

/** Stop scheduling (the process ends, or the node shuts down). @this {TermiteNode} */
export function stop() {
  this.stopped = true;
  if (this.timer !== null) clearTimeout(this.timer);
  this.timer = null;
  this.timerAt = Infinity;
  removeNode(this);
}

/** Deliver everything queued for the stdout process now (before exiting). @this {TermiteNode} */
export function flushStdout() {
  this.runHandler(this.stdoutProcess, false);
}

/** @param {Thread} th @param {any} v */
function returnTo(th, v) {
  th.act = ACT_RETURN;
  th.val = v;
}

/** @param {Thread} th @param {any} payload */
function raiseIn(th, payload) {
  th.act = ACT_CALL;
  th.clo = rtEnv.cell('raise').v;
  th.args = [payload];
}
