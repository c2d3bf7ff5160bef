// @ts-check
/**
 * A process: a Scheme thread (its continuation and dynamic state, see driver.js) plus
 * what the node keeps for it, and the ways a blocked process resumes.
 *
 * Invariants:
 *  - one object per process, few fields allocated lazily: hundreds of thousands of
 *    processes per node must stay cheap;
 *  - `waiting` is set exactly when the process blocked from inside a primitive, and says
 *    how to resume it when the core wakes it (one of W_*; scheduler.js prepareWake);
 *  - exit signals from linked processes queue in `signals` and are raised at the
 *    process's next receive (links-and-signals.js).
 */
import { Thread } from '@termite/scheme/internal';
import { HEAP_STEP } from './heap-limit.js';

/** How a blocked process resumes (proc.waiting.kind). */
export const W_RECEIVE = 1; // `?`: the oldest message, or the default on timeout
export const W_SCAN = 2; // selective receive: #t when a new message arrived, #f on timeout
export const W_TUPLE = 3; // Linda in/rd: the tuple, or the default on timeout
export const W_SLEEP = 4; // sleep: #!void when the time has come
export const W_EXTERNAL = 5; // an answer from outside (network); see resumeExternal
export const W_SEND = 6; // room for its `!` frames in the mesh's queue; resumes as it was (holdSender)

/** @typedef {import('../termite-node.js').TermiteNode} TermiteNode */
/** @typedef {import('../termite-values.js').Pid} Pid */

/**
 * A process: a Scheme thread plus what the node keeps for it (see the file header).
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
    /** @type {{priority: number, deadlineAt: number}|null} its Linda QoS while in `with-qos` (linda/qos.js) */
    this.qos = null;
    /** @type {Set<number>|null} its in-async/rd-async waiting as core records (linda/core-records.js) */
    this.asyncRecords = null;
    /** a `!` of its current slice waits for room in the mesh's queue (scheduler.js holdSender) */
    this.sendBlocked = false;
    /** @type {import('../copy-job.js').CopyJob|null} the copy of a big message its `!` is making (prims-processes.js) */
    this.copyJob = null;
    /** @type {string|null} the peer whose remote spawn this process descends from (process-table.js limits) */
    this.peer = null;
    /** messages sent to it (the mailbox is measured every few, process-table.js) */
    this.sent = 0;
    /** reductions it has done here, charges of primitives included (heap-limit.js) */
    this.work = 0;
    /** `work` at which its memory is looked at next (heap-limit.js checkHeap) */
    this.heapCheckAt = HEAP_STEP;
    /** @type {import('./heap-limit.js').Walk|null} the walk of what it holds, while one is under way */
    this.heapWalk = null;
    /** the group of its owner: the node's own, or a peer's (fair-share.js) */
    this.group = node.localGroup;
    /** `work` when the node-wide heap guard last chose a process to end (heap-limit.js guardHeap) */
    this.guardMark = 0;
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
