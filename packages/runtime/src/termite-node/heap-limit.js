// @ts-check
/**
 * Memory limits of processes: each process may hold at most `maxProcessHeap` bytes
 * (estimated), and the node kills the heaviest recent allocator rather than die when
 * the JavaScript heap nears its own limit.
 *
 * How a process's size is known. Allocation alone would kill a long-lived process that
 * only makes garbage, so the node measures what a process *holds*: a bounded walk of
 * everything reachable from its thread (pending call, value, continuation frames,
 * dynamic state) and its mailbox, adding an estimated size for each object (sizes of
 * V8's 64-bit layout, below). The walk is done only when it can matter and at a cost
 * proportional to the work the process did:
 *  - a process is looked at once it has done `HEAP_STEP` reductions since its last look,
 *    or as many reductions as objects it held then, whichever is more (its fuel, debts
 *    of big primitive charges included, is the proxy of its allocation: compiled code
 *    allocates a few objects per reduction at most, primitives charge 4 reductions per
 *    element built), so walking costs about one object visit per reduction at worst;
 *  - and only while the node's used JavaScript heap is at least `maxProcessHeap`: no
 *    process can hold more than the whole heap, so a node under the limit walks nothing.
 *
 * The estimate: list spines and continuation chains are followed iteratively (no
 * recursion, a cycle is found by Brent's method); other containers (vectors, closures'
 * free values, records, boxes, the heads of lists) are counted once each (a Set of at
 * most MAX_SEEN: past it, twice if reached twice); the
 * tail shared by two lists, or a frame chain kept by two captured continuations, is
 * counted twice, so the estimate errs on the large side. Pids, ports, tuple-space
 * references and other runtime objects count as one small object and are not entered
 * (a pid leads to another process). The walk stops as soon as the estimate passes the
 * limit (so it visits at most limit / 40 objects) or after `MAX_VISITS`. It is done in
 * chunks of WALK_CHUNK objects, one after each slice of the process (a walk of a
 * 5,000,000-element list is one call of 100-300 ms otherwise: the event loop would wait).
 *
 * One primitive call could still allocate more than the heap has left before any
 * check runs (`make-vector` of 100,000,000 slots): the scheduler sets the engine's
 * `R.buildCap` to the limit over 40 bytes, and a primitive asked to build more elements
 * in one call is refused with a `resource-limit` error before it allocates (engine.js
 * `built`).
 *
 * Invariants:
 *  - a process over its limit is ended with a `resource-limit` error naming the limit;
 *    its links get that error as an exit signal; the node logs it; nothing else stops;
 *  - the node-wide guard reads `v8.getHeapStatistics()` at most every GUARD_MS, and after
 *    it killed a process kills no other until the heap has fallen below the threshold
 *    or GUARD_COOLDOWN_MS passed (the killed process's memory needs a collection to go);
 *    `guardMark` is a process's `work` when the guard last chose whom to end.
 *
 * These functions are TermiteNode's methods (`this` is the node).
 */
import { Pair, Box, Record, Closure, Frame, Values, ErrorObject, Flonum, Ratnum } from '../scheme-data.js';
import { getHeapStatistics } from './heap-statistics.js';

/** Reductions a process does before it is looked at again, at least. */
export const HEAP_STEP = 1_000_000;
/**
 * Containers one walk records as seen at most (~40 MB of Set): past them, a container
 * reached twice is counted twice (the estimate errs on the large side, never the small).
 */
const MAX_SEEN = 1_000_000;
/** Objects one walk visits at most. */
const MAX_VISITS = 20_000_000;
/** Objects a walk visits between two slices of its process (a few ms: the event loop's wait stays bounded). */
const WALK_CHUNK = 200_000;
/** How often the node-wide guard reads the heap statistics (ms). */
const GUARD_MS = 50;
/**
 * The used heap above which the guard kills: this fraction of V8's heap limit less
 * GUARD_YOUNG (the young generation's part of the limit, ~48 MiB on 64-bit, which the
 * old generation cannot use: near its own limit V8 gives up with "Ineffective
 * mark-compacts near heap limit").
 */
const GUARD_FRACTION = 0.8;
const GUARD_YOUNG = 64 * 1048576;
/** After a kill, the guard waits this long (or for the heap to fall) before another (ms). */
const GUARD_COOLDOWN_MS = 2000;

// Estimated sizes in bytes (V8, 64-bit, no pointer compression): a header of 3 words
// (map, properties, elements), one word per field.
const OBJ = 24;
const WORD = 8;
const PAIR = OBJ + 2 * WORD;
const FRAME = OBJ + 4 * WORD;
const ARRAY = OBJ + WORD + 16; // the JSArray and its backing store's header
const SMALL = OBJ + 2 * WORD; // what an opaque runtime object is counted as

/** @typedef {import('./process.js').Process} Process */
/** @typedef {import('../termite-node.js').TermiteNode} TermiteNode */

/**
 * Estimated bytes held by a process (see the file header), up to about `budget`, in
 * one go (the node walks in chunks: checkHeap).
 * @param {TermiteNode} node @param {Process} proc @param {number} budget
 * @returns {{bytes: number, objects: number}}
 */
export function estimateHeld(node, proc, budget) {
  const w = new Walk(proc, budget);
  w.run(node, proc, Infinity);
  return { bytes: w.bytes, objects: w.objects };
}

/**
 * One bounded walk of what a process holds: a stack of values still to visit, what is
 * counted so far, how far into the mailbox it got. It runs in chunks (`run`); between
 * them the process runs on, so the estimate is of a structure that may change
 * meanwhile (a list being built is measured as it was when the walk reached it).
 */
export class Walk {
  /** @param {Process} proc @param {number} budget */
  constructor(proc, budget) {
    this.budget = budget;
    this.bytes = 0;
    this.objects = 0;
    /** object visits left in the current chunk */
    this.chunk = 0;
    /** the mailbox's next sequence number to visit, or -1 once it is done */
    this.seq = 0;
    /** @type {any[]} */ this.stack = [];
    /** @type {Set<any>} containers counted (not list spines nor frame chains) */
    this.seen = new Set();
    // the partial copy of a big message its `!` is making: the sender's until delivered
    if (proc.copyJob !== null) this.bytes += proc.copyJob.bytes;
    this.push(proc.clo);
    if (proc.args !== null) for (const a of proc.args) this.push(a);
    for (const x of [proc.val, proc.winders, proc.handlers, proc.params, proc.signals, proc.k]) this.push(x);
  }

  /**
   * Walk on for at most about `chunk` objects; true when the walk is over (all of it
   * seen, or over its budget).
   * @param {TermiteNode} node @param {Process} proc @param {number} chunk
   */
  run(node, proc, chunk) {
    this.chunk = chunk;
    for (;;) {
      this.drain();
      if (this.full) return true;
      if (this.chunk <= 0) return false;
      if (this.seq < 0) return true; // the stack is empty and the mailbox done
      const m = node.core.peek(proc.cpid, this.seq);
      if (m === undefined) this.seq = -1;
      else {
        this.push(m.value);
        this.seq = m.seq + 1;
        this.chunk--;
      }
    }
  }

  /** @param {any} x */
  push(x) {
    if (typeof x === 'object' ? x !== null : typeof x === 'string' || typeof x === 'bigint') this.stack.push(x);
  }

  get full() {
    return this.bytes > this.budget || this.objects > MAX_VISITS;
  }

  drain() {
    const stack = this.stack;
    while (stack.length > 0 && !this.full && this.chunk > 0) this.visit(stack.pop());
  }

  /** @param {any} x */
  visit(x) {
    if (typeof x === 'string') return this.count(OBJ + x.length);
    if (typeof x === 'bigint') return this.count(OBJ + Math.ceil(x.toString(16).length / 16) * WORD);
    if (this.seen.has(x)) return;
    if (this.seen.size < MAX_SEEN) this.seen.add(x);
    if (x instanceof Pair) return this.list(x);
    if (x instanceof Frame) return this.frames(x);
    if (Array.isArray(x)) return this.array(x);
    if (x instanceof Closure) {
      this.count(OBJ + 3 * WORD);
      if (x.fv !== null) this.array(x.fv);
      return;
    }
    if (x instanceof Record) return this.count(OBJ + 2 * WORD), this.array(x.f);
    if (x instanceof Box) return this.count(OBJ + WORD), this.push(x.v);
    if (x instanceof Values) return this.count(OBJ + WORD), this.array(x.vals);
    if (x instanceof Uint8Array) return this.count(96 + x.byteLength);
    if (x instanceof Ratnum) return this.count(OBJ + 2 * WORD), this.push(x.num), this.push(x.den);
    if (x instanceof ErrorObject) return this.count(OBJ + 4 * WORD), this.push(x.message), this.push(x.irritants);
    if (x instanceof Flonum) return this.count(OBJ + 2 * WORD);
    this.count(SMALL); // pids, tags, ports, symbols' like: not entered
  }

  /** @param {number} n */
  count(n) {
    this.bytes += n;
    this.objects++;
    this.chunk--;
  }

  /** @param {any[]} a */
  array(a) {
    this.count(ARRAY + a.length * WORD);
    for (let i = 0; i < a.length && !this.full; i++) this.push(a[i]);
  }

  /**
   * A list spine, followed iteratively; its head is counted once. The hot loop of a
   * walk: counters kept in locals, the room left computed once.
   * @param {Pair} head
   */
  list(head) {
    const stack = this.stack;
    const room = Math.min((this.budget - this.bytes) / PAIR, MAX_VISITS - this.objects, this.chunk) + 1;
    let p = /** @type {any} */ (head);
    let mark = p;
    let n = 0;
    let circular = false;
    for (let steps = 1, power = 1; p instanceof Pair && n < room; steps++) {
      n++;
      const a = p.car;
      if (typeof a === 'object' ? a !== null : typeof a === 'string' || typeof a === 'bigint') stack.push(a);
      p = p.cdr;
      if (p === mark) {
        circular = true;
        break;
      }
      if (steps === power) {
        mark = p;
        power *= 2;
        steps = 0;
      }
    }
    this.bytes += n * PAIR;
    this.objects += n;
    this.chunk -= n;
    // the end of the list; or, when the chunk ran out, the rest of the spine (a new head)
    if (!circular) this.push(p);
  }

  /** A chain of continuation frames, followed iteratively (the rest pushed when the chunk runs out). @param {Frame|null} f */
  frames(f) {
    let mark = f;
    for (let steps = 1, power = 1; f !== null; steps++) {
      if (this.full || this.chunk <= 0) return this.push(f);
      this.count(FRAME);
      this.array(f.s);
      this.drain();
      f = f.next;
      if (f === mark) return;
      if (steps === power) {
        mark = f;
        power *= 2;
        steps = 0;
      }
    }
  }
}

/**
 * Look at a process that did its step of reductions (runReady): end it if it holds
 * more than its limit.
 * @param {Process} proc @this {TermiteNode}
 */
export function checkHeap(proc) {
  const limit = this.limits.maxProcessHeap;
  let w = proc.heapWalk;
  if (w === null) {
    proc.heapCheckAt = proc.work + HEAP_STEP;
    if (!proc.alive || getHeapStatistics().used_heap_size < limit) return;
    w = proc.heapWalk = new Walk(proc, limit);
  }
  if (!w.run(this, proc, WALK_CHUNK)) {
    proc.heapCheckAt = proc.work; // on after its next slice
    return;
  }
  proc.heapWalk = null;
  proc.heapCheckAt = proc.work + Math.max(HEAP_STEP, w.objects);
  if (w.bytes > limit) killForMemory(this, proc, `holds more than ${mib(limit)}, its heap limit (--max-process-heap)`, limit);
}

/**
 * The node-wide guard, from runLoop: when the used heap passes GUARD_FRACTION of V8's
 * limit (less GUARD_YOUNG), end the process that did the most reductions since the guard last ended one
 * (a scan of the process table, done only then).
 * @param {number} now @this {TermiteNode}
 */
export function guardHeap(now) {
  if (now - this.guardAt < GUARD_MS) return;
  this.guardAt = now;
  const h = getHeapStatistics();
  if (h.used_heap_size <= (h.heap_size_limit - GUARD_YOUNG) * GUARD_FRACTION) {
    this.guardCooldownUntil = 0;
    return;
  }
  if (now < this.guardCooldownUntil) return;
  /** @type {Process|null} */
  let heaviest = null;
  for (const p of this.byCore) {
    if (p === undefined || !p.alive || p.handler !== null) continue;
    if (heaviest === null || p.work - p.guardMark > heaviest.work - heaviest.guardMark) heaviest = p;
    p.guardMark = p.work;
  }
  if (heaviest === null) return;
  this.guardCooldownUntil = now + GUARD_COOLDOWN_MS;
  killForMemory(this, heaviest, `allocated the most while the node's heap was nearly full (${mib(h.used_heap_size)} used of ${mib(h.heap_size_limit)})`, h.heap_size_limit);
}

/**
 * End a process for its memory, with a `resource-limit` error, and drop what it holds.
 * @param {TermiteNode} node @param {Process} proc @param {string} why @param {number} limit
 */
function killForMemory(node, proc, why, limit) {
  const err = new ErrorObject(`process ${proc.pid.n} stopped: it ${why}`, new Pair(limit, null), 'resource-limit', 'heap');
  node.stats.heapKills++;
  node.log(`process ${proc.pid.n} stopped: it ${why}`);
  proc.heapWalk = null;
  node.finish(proc, true, err);
  proc.clo = null;
  proc.args = null;
  proc.val = null;
  proc.winders = proc.handlers = proc.params = null;
  // a node started with --expose-gc (an operator's choice) gives the memory back at once
  const gc = /** @type {any} */ (globalThis).gc;
  if (typeof gc === 'function') setTimeout(gc, 0);
}

/** @param {number} n bytes */
function mib(n) {
  return `${Math.round((n / 1048576) * 10) / 10} MiB`;
}
