// @ts-check
/**
 * A Termite node: processes running compiled Scheme (or JavaScript handlers) on the C
 * core's scheduler, with mailboxes, links, tuple spaces and timers in the core.
 *
 * There is one scheduler, the core's: this module only asks it which process runs
 * next (`core.next()`), runs that process's thread for a time slice of reductions, and
 * reports back (yield, or the process already blocked itself in the core from inside a
 * primitive, or it ended). The loop gives the JS event loop a turn every few
 * milliseconds, sleeps until the earliest timer when nothing is ready, and is woken by
 * `poke()` when something outside (the JS API, the network) makes a process ready.
 *
 * Invariants:
 *  - a process is in exactly one of: running (inside runProcess), ready or waiting
 *    in the core, or exited (removed from `procs`);
 *  - `proc.waiting` is set exactly when the process blocked from inside a primitive,
 *    and says how to resume it when the core wakes it;
 *  - exit signals from linked processes queue in `proc.signals` and are raised at the
 *    process's next receive (a waiting process is interrupted to raise them at once).
 */
import { loadCore } from '@termite/core';
import {
  Thread, runSlice, ACT_CALL, ACT_RETURN, SLICE_YIELD, SLICE_DONE, SLICE_SUSPENDED, SLICE_DIED,
  rtEnv, boot, Port, portDecoders,
} from '@termite/scheme/internal';
import { ErrorObject, Sym, SchemeError, Pair } from './scheme-values.js';
import { Pid, Tag, NodeRef, pidHooks } from './values.js';
import { copyMessage } from './copy.js';
import { soon } from './soon.js';

/** How a blocked process resumes (proc.waiting.kind). */
export const W_RECEIVE = 1; // `?`: the oldest message, or the default on timeout
export const W_SCAN = 2; // selective receive: #t when a new message arrived, #f on timeout
export const W_TUPLE = 3; // Linda in/rd: the tuple, or the default on timeout
export const W_SLEEP = 4; // sleep: #!void when the time has come
export const W_EXTERNAL = 5; // an answer from outside (network); see resumeExternal

/** A clock the node never advances: a wait on it ends only by interrupt. */
const CLOCK_NEVER = 3;

/** Reductions in a time slice (Erlang uses 4,000 reductions). */
const FUEL = 4000;
/** Longest run of the scheduler before the event loop gets a turn (ms). */
const LOOP_MS = 8;

const TIMEOUT = Sym.intern('timeout');
/** Arguments of a call without any: frozen, never written (the driver only reads args). */
const EMPTY_ARGS = /** @type {any[]} */ (/** @type {unknown} */ (Object.freeze([])));
/** The core's process table: 21 bits of slot index. */
const SLOTS = 0x200000;
const SLOT_MASK = 0x1fffff;

/**
 * A process: a Scheme thread (its continuation and dynamic state, see driver.js) plus
 * what the node keeps for it. One object per process, few fields allocated lazily:
 * hundreds of thousands of processes per node must stay cheap.
 */
export class Process extends Thread {
  /**
   * @param {TermiteNode} node @param {Pid} pid @param {number} cpid the core's pid
   */
  constructor(node, pid, cpid) {
    super(null, /** @type {any} */ (null)); // a process gets its entry and arguments when it starts
    this.owner = this;
    this.node = node;
    this.pid = pid;
    this.cpid = cpid;
    /** @type {((msg: any, proc: Process) => void)|null} a JavaScript message handler (no Scheme code) */
    this.handler = null;
    /** @type {Pid[]|null} processes that receive my uncaught exception (outbound links) */
    this.links = null;
    /** @type {any[]|null} exit signals to raise at the next receive */
    this.signals = null;
    /** @type {any} how to resume when woken (see W_*), or null */
    this.waiting = null;
    this.alive = true;
    /** @type {any} an answer delivered by resumeExternal */
    this.external = null;
    /** @type {((outcome: {ok: boolean, value: any}) => void)|null} told when the process ends */
    this.onExit = null;
    /** @type {string[]|null} nodes this process lived on before (migration) */
    this.visited = null;
    /** @type {string|null} the name of the procedure it was started with (dashboard) */
    this.name = null;
  }

  /** The process's Scheme thread (itself). */
  get thread() {
    return this;
  }

  /** Whether exit signals are waiting to be raised. */
  get signalled() {
    return this.signals !== null && this.signals.length > 0;
  }

  /** The oldest pending exit signal (removed). */
  takeSignal() {
    return /** @type {any[]} */ (this.signals).shift();
  }
}

/**
 * @typedef {object} NodeOptions
 * @property {string} [id] node id (default: random; the mesh supplies the identity's id)
 * @property {string|null} [host] @property {number|null} [port]
 * @property {(s: string) => void} [stdout] where the stdout process writes
 * @property {(s: string) => void} [log] node log lines (supervisor info, crashes)
 * @property {import('@termite/core').Core} [core] an existing core
 * @property {'daemon'|'tab'} [kind] what kind of node this is (default 'daemon')
 */

export class TermiteNode {
  /** @param {NodeOptions} [opts] */
  static async create(opts = {}) {
    const core = opts.core ?? (await loadCore());
    return new TermiteNode(core, opts);
  }

  /** @param {any} core @param {NodeOptions} opts */
  constructor(core, opts) {
    boot();
    this.core = core;
    this.id = opts.id ?? randomId();
    this.ref = new NodeRef(this.id, opts.host ?? null, opts.port ?? null);
    /** @type {(Process|undefined)[]} processes by core process-table slot (what core.next() names) */
    this.byCore = [];
    /** @type {(Process|undefined)[]} processes born here, by their pid's slot (n mod 2^21) */
    this.bySlot = [];
    /** @type {Map<string, Process>} processes that migrated here (any origin), by "node/n" */
    this.guests = new Map();
    /**
     * How many processes each slot has held. A pid's serial is slot + uses * 2^21, so
     * serials are never reused (unlike the core's 11-bit generations) and a serial finds
     * its process without a map.
     */
    this.slotUses = new Uint32Array(1024);
    this.tagSerial = 0;
    this.stdoutSink = opts.stdout ?? ((s) => void s);
    this.log = opts.log ?? ((s) => void s);
    this.scheduled = false;
    /** whether a run at the end of the current task is queued (pokeAfterTask) */
    this.runQueued = false;
    /** whether runLoop is on the stack (runArrivedNow must not re-enter it) */
    this.looping = false;
    /** @type {any} the wake-up timer of the earliest deadline (reschedule) */
    this.timer = null;
    /** when this.timer fires, on this.now()'s clock; Infinity without a timer */
    this.timerAt = Infinity;
    this.stopped = false;
    this.t0 = performance.now();
    /** 'daemon' or 'tab' (what the dashboard shows) */
    this.kind = opts.kind ?? 'daemon';
    this.loadAvg = 0;
    this.loadAt = 0;
    /** Counters for the dashboard and tests. */
    this.stats = { spawned: 0, exited: 0, messages: 0, slices: 0 };
    /** @type {Map<string, any>} tuple spaces by name */
    this.spaces = new Map();
    /** @type {any} the distribution layer (remote send, links, spawn, migration), when in a mesh */
    this.remote = null;
    /** @type {Map<string, any>} environments of programs run or received here, by id */
    this.environments = new Map();
    this.stdoutProcess = this.spawnHandler((msg) => this.stdoutSink(String(msg)));
    /** The port every process started here writes to by default: it sends to the stdout process. */
    this.stdoutPort = makeProcessPort(this, this.stdoutProcess.pid);
    nodes.add(this);
    soleNode = nodes.size === 1 ? this : null;
  }

  /** Milliseconds on the node's real-time clock (clock 0 of the core). */
  now() {
    return performance.now() - this.t0;
  }

  // ------------------------------------------------------------------ processes

  /**
   * Start a process running `thunk` (a Scheme procedure of no arguments).
   * @param {any} thunk
   * @param {{params?: any, priority?: number}} [opts] params: the parent's parameter bindings
   */
  spawn(thunk, opts = {}) {
    const proc = this.newProcess(opts.priority);
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
   */
  spawnCall(procedure, args) {
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
   */
  spawnHandler(handler) {
    const proc = this.newProcess(1);
    proc.handler = handler;
    proc.act = ACT_RETURN;
    this.poke();
    return proc;
  }

  /** @param {number} [priority] */
  newProcess(priority) {
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
    return proc;
  }

  /**
   * Take over a process that migrated here: a new local process with the given pid and
   * thread state; it is ready to run.
   * @param {Pid} pid @param {Thread} th
   */
  adopt(pid, th) {
    const cpid = this.core.spawn({ priority: 2 });
    const proc = new Process(this, pid, cpid);
    for (const f of ['act', 'clo', 'args', 'val', 'k', 'winders', 'handlers', 'params']) /** @type {any} */ (proc)[f] = /** @type {any} */ (th)[f];
    this.guests.set(`${pid.node}/${pid.n}`, proc);
    this.byCore[cpid & SLOT_MASK] = proc;
    this.stats.spawned++;
    this.poke();
    return proc;
  }

  /**
   * Remove a process that left this node (migrated): no exit signals, no links fired.
   * @param {Process} proc
   */
  retire(proc) {
    if (!proc.alive) return;
    proc.alive = false;
    proc.waiting = null;
    this.core.exit(proc.cpid);
    this.forget(proc);
    proc.k = null;
  }

  /** Drop a process from the tables. @param {Process} proc */
  forget(proc) {
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

  /** Parameter bindings of a process started by the node itself: output to the stdout process. */
  defaultParams() {
    const key = rtEnv.cell('current-output-port').v.fv[0];
    return new Pair(new Pair(key, this.stdoutPort), null);
  }

  /**
   * The local process a pid names, or null.
   * @param {Pid} pid
   * @returns {Process|null}
   */
  local(pid) {
    if (pid.p !== null && pid.p.alive) return pid.p;
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
   */
  bySerialNumber(n) {
    const proc = this.bySlot[n % SLOTS];
    return proc !== undefined && proc.pid.n === n && proc.alive ? proc : null;
  }

  /**
   * `!`: deliver a copy of msg to pid's mailbox; never blocks, silently drops a
   * message to a process that does not exist ("send and pray").
   * @param {Pid} pid @param {any} msg
   */
  send(pid, msg) {
    this.stats.messages++;
    const p = pid.p;
    const proc = p !== null && p.alive ? p : this.local(pid);
    if (proc !== null) {
      this.core.send(proc.cpid, copyMessage(msg));
      return;
    }
    // not here (any more): another node's, or one that migrated away
    if (this.remote !== null) this.remote.send(pid, msg);
  }

  /** A fresh universally unique tag. */
  makeTag() {
    return new Tag(this.id, ++this.tagSerial);
  }

  // ------------------------------------------------------------------ links

  /**
   * `from` gets an outbound link to `to`: when `from` dies of an uncaught exception,
   * the exception is raised in `to`.
   * @param {Pid} from @param {Pid} to
   */
  addLink(from, to) {
    const p = this.local(from);
    if (p !== null) {
      if (p.links === null) p.links = [];
      if (!p.links.some((q) => q.node === to.node && q.n === to.n)) p.links.push(to);
      return;
    }
    if (from.node === this.id && !this.remote?.forwarding.has(`${from.node}/${from.n}`)) {
      // the process is already dead: it will never raise; tell `to` at once
      this.signal(to, new ErrorObject('linked process is not alive', new Pair(from, null), 'noproc', 'link'));
      return;
    }
    if (this.remote !== null) this.remote.link(from, to);
  }

  /** @param {Pid} from @param {Pid} to */
  removeLink(from, to) {
    const p = this.local(from);
    if (p !== null) {
      if (p.links !== null) p.links = p.links.filter((q) => !(q.node === to.node && q.n === to.n));
    } else if (this.remote !== null) this.remote.unlink(from, to);
  }

  /**
   * Deliver an exit signal: raised in the process at its next receive, at once if it
   * is waiting.
   * @param {Pid} pid @param {any} payload
   */
  signal(pid, payload) {
    const proc = this.local(pid);
    if (proc === null) {
      if (this.remote !== null) this.remote.signal(pid, payload);
      return;
    }
    if (proc.handler !== null) return;
    if (proc.signals === null) proc.signals = [];
    proc.signals.push(payload);
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
   */
  finish(proc, died, value) {
    if (!proc.alive) return;
    proc.alive = false;
    proc.waiting = null;
    this.core.exit(proc.cpid);
    this.forget(proc);
    this.stats.exited++;
    if (proc.visited && this.remote !== null) this.remote.processEnded(proc);
    proc.k = null;
    const links = proc.links ?? [];
    proc.links = null;
    if (died) {
      const terminated = value instanceof ErrorObject && value.kind === 'terminated';
      if (links.length === 0 && proc.onExit === null && !terminated) this.log(`process ${proc.pid.n} died: ${describe(value)}`);
      for (const to of links) this.signal(to, value);
    }
    if (proc.onExit) proc.onExit({ ok: !died, value });
  }

  /**
   * `terminate!`: end a process that may not cooperate. Its links receive a
   * 'terminated error.
   * @param {Pid} pid
   */
  terminate(pid) {
    const proc = this.local(pid);
    if (proc === null) {
      if (this.remote !== null) this.remote.terminate(pid);
      return;
    }
    this.finish(proc, true, new ErrorObject('process terminated', new Pair(pid, null), 'terminated', 'terminate!'));
  }

  // ------------------------------------------------------------------ blocking (used by primitives)

  /**
   * Block the running process until an external answer (resumeExternal) or an
   * interrupt. Returns the unwind the primitive must return.
   * @param {Process} proc @param {any} info
   */
  blockExternal(proc, info) {
    proc.waiting = { kind: W_EXTERNAL, info };
    proc.external = null;
    this.core.sleep(proc.cpid, 1e300, { clock: CLOCK_NEVER });
  }

  /**
   * Whether the core has the process in one of its waiting states (not ready or
   * running: a process woken in this turn is ready while proc.waiting is still set).
   * @param {Process} proc
   */
  isWaiting(proc) {
    return this.core.state(proc.cpid).startsWith('waiting');
  }

  /**
   * Deliver the answer a process blocked with blockExternal is waiting for.
   * @param {Process} proc @param {{value?: any, raise?: any}} answer
   */
  resumeExternal(proc, answer) {
    if (!proc.alive || proc.waiting === null || proc.waiting.kind !== W_EXTERNAL) return false;
    proc.external = answer;
    if (this.isWaiting(proc)) this.core.interrupt(proc.cpid);
    // in this task, like a message from the network: the answer of a remote call arrives
    // in a promise reaction, and a poke() would run the process only a task later (a
    // remote spawn's caller spent ~13 µs a spawn in that setImmediate turn)
    this.pokeAfterTask();
    return true;
  }

  // ------------------------------------------------------------------ the scheduler loop

  /** Make sure the scheduler loop will run soon. */
  poke() {
    if (this.scheduled || this.stopped) return;
    this.scheduled = true;
    soon(() => this.runLoop()); // which cancels the pending timer, if any
  }

  /**
   * Run the scheduler at the end of the current task, for a message that arrived from
   * the network: that event's task has nothing else to do, so waiting for poke()'s
   * next task (a MessageChannel round in a browser worker) would only add latency to
   * every remote round trip. Microtasks never interrupt running JS, so this cannot
   * re-enter the loop; the loop itself still yields to the event loop by poke().
   */
  pokeAfterTask() {
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
   */
  runArrivedNow() {
    if (this.runQueued && !this.looping) this.runAfterTask();
  }

  /**
   * A message from the network was just put in a mailbox, at the outermost point of
   * this package's code on the stack: run the loop now (as pokeAfterTask then
   * runArrivedNow would, without queueing the microtask that would find nothing to do),
   * or, if the loop is on the stack (a transport that delivers synchronously), after it.
   */
  runDelivered() {
    if (this.looping || this.stopped) this.pokeAfterTask();
    else this.runAfterTask();
  }

  /** pokeAfterTask's microtask: nothing to do if runArrivedNow ran it already. */
  afterTask = () => {
    if (this.runQueued) this.runAfterTask();
  };

  /** Run the loop for pokeAfterTask; an error escapes as from queueMicrotask, uncaught. */
  runAfterTask() {
    this.runQueued = false;
    try {
      this.runLoop();
    } catch (e) {
      queueMicrotask(() => {
        throw e;
      });
    }
  }

  /** Run ready processes for up to LOOP_MS, then give the event loop a turn. */
  runLoop() {
    this.scheduled = false;
    if (this.stopped) return;
    const core = this.core;
    const start = this.now();
    core.advance(0, start);
    this.looping = true;
    try {
      this.runReady(start);
    } finally {
      this.looping = false;
    }
    if (this.stopped) return;
    this.noteBusy(start, this.now());
    this.reschedule();
  }

  /** runLoop's body: ready processes, until none is left or LOOP_MS passed. @param {number} start */
  runReady(start) {
    const core = this.core;
    for (let i = 1; ; i++) {
      if ((i & 31) === 0) {
        const t = this.now();
        if (t - start > LOOP_MS) break;
        core.advance(0, t);
      }
      const cpid = core.next();
      if (cpid === 0) break;
      const proc = this.byCore[cpid & SLOT_MASK];
      if (proc === undefined || proc.cpid !== cpid) {
        core.exit(cpid);
        continue;
      }
      this.runProcess(proc, core.wakeReason);
      if (this.stopped) return;
    }
  }

  /**
   * Account scheduler busy time, for `(node-load)`: an exponentially weighted average
   * of the fraction of time spent running processes (time constant ~1 s).
   * @param {number} from @param {number} to
   */
  noteBusy(from, to) {
    const since = to - this.loadAt;
    if (since <= 0) return;
    const busy = Math.min(to - from, since);
    const decay = Math.exp(-since / 1000);
    this.loadAvg = this.loadAvg * decay + (busy / since) * (1 - decay);
    this.loadAt = to;
  }

  /** The load average in [0, 1], decayed to now. */
  load() {
    const since = this.now() - this.loadAt;
    return since > 0 ? this.loadAvg * Math.exp(-since / 1000) : this.loadAvg;
  }

  /**
   * A JSON-able picture of this node for the dashboard: processes, spaces, counters.
   * @param {number} [maxProcesses]
   */
  snapshot(maxProcesses = 200) {
    const procs = [];
    const seen = new Set();
    for (const p of [...this.bySlot, ...this.guests.values()]) {
      if (p === undefined || !p.alive || seen.has(p) || p === this.stdoutProcess) continue;
      seen.add(p);
      if (procs.length < maxProcesses) {
        procs.push({ pid: `${p.pid.n}@${p.pid.node.slice(0, 8)}`, name: p.handler !== null ? 'handler' : (p.name ?? p.clo?.lam?.name ?? p.k?.lam?.name ?? 'process'), state: this.core.state(p.cpid), migrated: p.visited !== null });
      }
    }
    const spaces = [...this.spaces.entries()].map(([name, s]) => ({ name, tuples: s.size }));
    return {
      id: this.id,
      kind: this.kind,
      address: this.ref.host !== null ? `${this.ref.host}:${this.ref.port}` : null,
      load: this.load(),
      processes: { live: this.core.processStats().live - 1, shown: procs },
      spaces,
      counters: { ...this.stats, ...(this.remote?.stats ?? {}) },
      coreBytes: this.core.liveBytes,
    };
  }

  reschedule() {
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

  /** The wake-up timer fired: run the loop, which re-arms it if a deadline is left. */
  onTimer = () => {
    this.timer = null;
    this.timerAt = Infinity;
    this.poke();
  };

  /**
   * Run one process for one slice.
   * @param {Process} proc @param {string} reason why the core made it ready
   */
  runProcess(proc, reason) {
    if (proc.handler !== null) {
      this.runHandler(proc);
      return;
    }
    const th = proc;
    if (proc.waiting !== null) this.prepareWake(proc, th, reason);
    this.stats.slices++;
    const r = runSlice(th, FUEL);
    if (!proc.alive) return; // terminated while running (terminate! on itself)
    switch (r) {
      case SLICE_YIELD:
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
   */
  runHandler(proc, scheduled = true) {
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
   */
  prepareWake(proc, th, reason) {
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
      default:
        return raiseIn(th, new ErrorObject(`woken without an answer (${reason})`, null, 'internal', null));
    }
  }

  /** Stop scheduling (the process ends, or the node shuts down). */
  stop() {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.timerAt = Infinity;
    nodes.delete(this);
    soleNode = nodes.size === 1 ? nodes.values().next().value ?? null : null;
  }

  /** Deliver everything queued for the stdout process now (before exiting). */
  flushStdout() {
    this.runHandler(this.stdoutProcess, false);
  }
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

/** @param {any} v */
function describe(v) {
  if (v instanceof ErrorObject) return `${v.who ? v.who + ': ' : ''}${v.message}${v.loc ? ' (at ' + v.loc + ')' : ''}`;
  return String(v?.name ?? v);
}

function randomId() {
  const bytes = new Uint8Array(10);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** A settled promise: its then() queues a microtask. */
const SETTLED = Promise.resolve();

/** Every live node in this realm (for pid interning on decode). @type {Set<TermiteNode>} */
const nodes = new Set();
/** The node of `nodes` when it has exactly one (the usual case), else null. @type {TermiteNode | null} */
let soleNode = null;
pidHooks.intern = (pid) => {
  // most pids decoded are another node's: one comparison when this realm has one node
  if (nodes.size === 1) {
    if (soleNode !== null && soleNode.id === pid.node) pid.p = soleNode.bySerialNumber(pid.n);
    return pid;
  }
  for (const n of nodes) {
    if (n.id === pid.node) {
      pid.p = n.bySerialNumber(pid.n);
      break;
    }
  }
  return pid;
};

/**
 * A textual output port whose writes become messages to a process (the node's stdout
 * process): resources are processes (Termite §3.1), so output from any process, on any
 * node, arrives in order at the node that owns the terminal.
 * @param {TermiteNode} node @param {Pid} target
 */
export function makeProcessPort(node, target) {
  const port = new Port({ kind: 'process', output: true, sink: (s) => node.send(target, s), buffering: 'none' });
  /** @type {any} */ (port).target = target;
  /** @type {any} */ (port).wireFields = () => ['process', target];
  return port;
}

portDecoders.set('process', (fields) => {
  const target = fields[1];
  if (!(target instanceof Pid)) throw new SchemeError(new ErrorObject('bad process port', null, 'codec', null));
  const node = [...nodes][0];
  return makeProcessPort(node, target);
});
