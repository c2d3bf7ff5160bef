// @ts-check
/**
 * A Termite node: processes running compiled Scheme (or JavaScript handlers) on the C
 * core's scheduler, with mailboxes, links, tuple spaces and timers in the core.
 *
 * Where things are (each file states the invariants of what it owns):
 *   termite-node/process.js            a process (thread + what the node keeps), how it resumes (W_*)
 *   termite-node/process-table.js      creating, finding, retiring processes; mailboxes (send, deliver)
 *   termite-node/scheduler.js          the loop over the core's ready queue, timers, blocking and waking
 *   termite-node/links-and-signals.js  links, exit signals, the end of a process, terminate!
 *   termite-node/node-snapshot.js      the load average and the dashboard's snapshot
 *   termite-node/heap-limit.js         what a process holds, its heap limit, the node-wide heap guard
 *   termite-node/fair-share.js         CPU shares: owner groups (the node, each peer), rounds of quotas
 *   termite-node/process-port.js       the output port that writes to a process (stdout)
 *   termite-node/realm-nodes.js        the nodes of this realm, for decoded pids to find their process
 *
 * The class below holds a node's state and names its methods; each method is a
 * function of the file of its mechanism, whose `this` is the node. A method moved there
 * whole, so a call costs what it did when the class was one file: the scheduler loop
 * and the SEND paths keep their code and call depth.
 *
 * What the node asks of the network it asks of `remote` (remote-ops.js), and only for
 * pids that are not local; the distribution layer asks of the node only through its
 * methods (it never touches the core: a message goes into a mailbox by `deliver`).
 */
import { loadCore } from '@termite/core';
import { boot } from '@termite/scheme/internal';
import { NodeRef } from './termite-values.js';
import { Process } from './termite-node/process.js';
import { makeProcessPort } from './termite-node/process-port.js';
import { addNode } from './termite-node/realm-nodes.js';
import * as table from './termite-node/process-table.js';
import * as scheduler from './termite-node/scheduler.js';
import * as links from './termite-node/links-and-signals.js';
import * as view from './termite-node/node-snapshot.js';
import * as heap from './termite-node/heap-limit.js';
import * as fair from './termite-node/fair-share.js';

export { Process, makeProcessPort };

/** @typedef {import('./remote-ops.js').RemoteOps} RemoteOps */

/**
 * @typedef {object} NodeOptions
 * @property {string} [id] node id (default: random; the mesh supplies the identity's id)
 * @property {string|null} [host] @property {number|null} [port]
 * @property {(s: string) => void} [stdout] where the stdout process writes
 * @property {(s: string) => void} [log] node log lines (supervisor info, crashes)
 * @property {import('@termite/core').Core} [core] an existing core
 * @property {'daemon'|'tab'} [kind] what kind of node this is (default 'daemon')
 * @property {import('./termite-node/process-table.js').Limits} [limits] process and
 *   mailbox limits (defaults: table.DEFAULT_LIMITS; docs/security.md, "Limits")
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
    this.overran = false; // the last loop ran out of its time with processes still ready (busy)
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
    this.stats = { spawned: 0, exited: 0, messages: 0, slices: 0, sendHolds: 0, refused: 0, heapKills: 0, putBacks: 0 };
    /** the process and mailbox limits (process-table.js) */
    this.limits = table.nodeLimits(opts.limits);
    /** elements one primitive call may build in a process here: its heap limit at 40 bytes an element (heap-limit.js) */
    this.buildCap = Math.floor(this.limits.maxProcessHeap / 40);
    /** live processes (spawned or adopted here, not yet ended or gone) */
    this.live = 0;
    /** @type {Map<string, number>} live processes by the peer whose remote spawn they descend from */
    this.byPeer = new Map();
    /** when the heap guard last looked (first: one interval after the start, so a short run never loads node:v8), and until when it kills no other process (now()'s clock) */
    this.guardAt = 0;
    this.guardCooldownUntil = 0;
    /** the group of this node's own processes, and each peer's (fair-share.js) */
    this.localGroup = new fair.OwnerGroup(null);
    /** @type {Map<string, fair.OwnerGroup>} */
    this.peerGroups = new Map();
    /** @type {fair.OwnerGroup[]} groups that ran in the current round; how many ran in the last */
    this.roundGroups = [];
    this.lastRoundGroups = 0;
    this.round = 0;
    /** @type {fair.OwnerGroup[]} groups whose count is above zero */
    this.owing = [];
    /** processes put back in a row, after how many the round ends, and the least count among their groups */
    this.putBacks = 0;
    this.putBackLimit = 0;
    this.leastPutBack = 0;
    /** @type {Set<Process>} processes whose mailbox was at its limit when last measured */
    this.fullMailboxes = new Set();
    /** the log of deaths of unwatched processes, rate-limited (links-and-signals.js) */
    this.deathLog = { since: -Infinity, lines: 0, unlogged: 0 };
    /** @type {Array<{pid: string, at: number, text: string}>} the last deaths logged, newest last (RECENT_DEATHS at most), for the dashboard */
    this.recentDeaths = [];
    /** @type {Map<string, any>} tuple spaces by name */
    this.spaces = new Map();
    /** @type {RemoteOps | null} the distribution layer (remote send, links, spawn, migration), when in a mesh */
    this.remote = null;
    /** @type {Map<string, any>} environments of programs run or received here, by id */
    this.environments = new Map();
    this.stdoutProcess = this.spawnHandler((msg) => this.stdoutSink(String(msg)));
    /** The port every process started here writes to by default: it sends to the stdout process. */
    this.stdoutPort = makeProcessPort(this, this.stdoutProcess.pid);
    addNode(this);
  }

  /** Milliseconds on the node's real-time clock (clock 0 of the core). */
  now() {
    return performance.now() - this.t0;
  }

  // the process table (termite-node/process-table.js)
  spawn = table.spawn;
  spawnCall = table.spawnCall;
  spawnHandler = table.spawnHandler;
  newProcess = table.newProcess;
  checkSpawn = table.checkSpawn;
  checkMailbox = table.checkMailbox;
  adopt = table.adopt;
  retire = table.retire;
  forget = table.forget;
  defaultParams = table.defaultParams;
  local = table.local;
  bySerialNumber = table.bySerialNumber;
  send = table.send;
  deliver = table.deliver;
  peekMessage = table.peekMessage;
  makeTag = table.makeTag;

  // links and signals (termite-node/links-and-signals.js)
  addLink = links.addLink;
  removeLink = links.removeLink;
  signal = links.signal;
  finish = links.finish;
  terminate = links.terminate;

  // blocking and the scheduler loop (termite-node/scheduler.js)
  blockExternal = scheduler.blockExternal;
  isWaiting = scheduler.isWaiting;
  resumeExternal = scheduler.resumeExternal;
  holdSender = scheduler.holdSender;
  resumeSender = scheduler.resumeSender;
  poke = scheduler.poke;
  pokeAfterTask = scheduler.pokeAfterTask;
  runArrivedNow = scheduler.runArrivedNow;
  runDelivered = scheduler.runDelivered;
  runAfterTask = scheduler.runAfterTask;
  runLoop = scheduler.runLoop;
  runReady = scheduler.runReady;
  reschedule = scheduler.reschedule;
  runProcess = scheduler.runProcess;
  runHandler = scheduler.runHandler;
  prepareWake = scheduler.prepareWake;
  stop = scheduler.stop;
  flushStdout = scheduler.flushStdout;

  /** poke()'s run in a later task. */
  runSoon = () => {
    this.scheduled = false;
    this.runLoop();
  };

  /** pokeAfterTask's microtask: nothing to do if runArrivedNow ran it already. */
  afterTask = () => {
    if (this.runQueued) this.runAfterTask();
  };

  /** The wake-up timer fired: run the loop, which re-arms it if a deadline is left. */
  onTimer = () => {
    this.timer = null;
    this.timerAt = Infinity;
    this.poke();
  };

  // memory limits (termite-node/heap-limit.js)
  checkHeap = heap.checkHeap;
  guardHeap = heap.guardHeap;

  // CPU shares of owners (termite-node/fair-share.js)
  joinGroup = fair.joinGroup;
  leaveGroup = fair.leaveGroup;
  charged = fair.charged;
  putBack = fair.putBack;
  forgive = fair.forgive;
  endRound = fair.endRound;

  // load and snapshot (termite-node/node-snapshot.js)
  noteBusy = view.noteBusy;
  load = view.load;
  snapshot = view.snapshot;
}

function randomId() {
  const bytes = new Uint8Array(10);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
