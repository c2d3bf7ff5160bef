// @ts-check
/**
 * The copy of a big message for a local `!`, done in bounded chunks so that no single
 * call holds the node's event loop for long (docs/processes.md, "Fairness"): one chunk
 * creates or visits at most COPY_CHUNK objects, and the sending process is suspended
 * between chunks (prims-processes.js calls `run` once per call of `!`'s step builtin).
 *
 * How a message is copied, cheapest first:
 *  1. copySmall (copy.js): values shared as they are, and messages of a few dozen objects;
 *  2. flat: a list or a vector whose elements are all shared (numbers, symbols, immutable
 *     strings, literal constants) — the commonest big message — copied with no memo: the
 *     spine is the only container, and a cycle in it is found by a tortoise; meeting an
 *     element that must be copied, a cyclic spine or a tail that must be copied drops
 *     the flat copy and goes on with 3;
 *  3. a walk counting the message's objects as a tree, stopped at COPY_CHUNK: a message
 *     under it is copied by copy.js's graphCopy in one call (the path every message took
 *     before); a bigger one by the graph copy below, with a memo so that sharing and
 *     cycles are kept, and a stack of tasks, each of which creates or visits a bounded
 *     number of objects before it yields (a list spine and a vector's elements resume
 *     where they stopped); a chunk's units are set from the time the previous chunk took.
 *
 * The memo is a list of bounded `Map` segments (copy-memo.js), not one `Map`: V8 grows a
 * `Map` by rehashing it whole in one call, which at 1,048,576 entries took 80–265 ms,
 * so one `Map` held the event loop that long once or twice for a message of more than
 * ~500,000 objects. A segment's longest growth is a few ms.
 *
 * Invariants: a job's partial copy is reachable only from the job (the process's
 * `copyJob`), so dropping the job frees it; `run` never does more than about COPY_CHUNK
 * units of work (objects created or elements visited; a bytevector or mutable string
 * counts one unit per 64 bytes, copied in one slice) and charges the slice 8 reductions
 * a unit, as the one-call copy did; the result is the copy `copyMessage` would make
 * (same sharing, cycles, shared immutables).
 */
import { Pair, Box, Record, Closure, Frame, Values, ErrorObject, Port } from './scheme-data.js';
import { MString } from '@termite/scheme';
import { charge } from '@termite/scheme/internal';
import { copySmall, graphCopy, isShared, copyString, copyPort, GIVE_UP } from './copy.js';
import { SegmentedMemo } from './copy-memo.js';

/** Units of work (objects created or visited) one chunk does at most: ~0.3–1 ms flat. */
export const COPY_CHUNK = 16384;
/**
 * Units of the first chunk of the graph copy: a quarter of COPY_CHUNK, since an object
 * copied through the memo and a task costs about four times a flat one (~1 ms a chunk).
 * Later chunks are sized from the time the previous one took (GRAPH_CHUNK_MS), between
 * GRAPH_CHUNK_MIN and GRAPH_CHUNK_MAX units: a unit costs more as the memo grows (one
 * lookup per segment, copy-memo.js), and a count alone would let chunks grow with it.
 */
const GRAPH_CHUNK = 4096;
const GRAPH_CHUNK_MIN = 512;
const GRAPH_CHUNK_MAX = 8192;
/** The time a chunk of the graph copy aims at (ms). */
const GRAPH_CHUNK_MS = 1.5;
/** Bytes a copied object is counted as in the sender's heap account (a pair: 40). */
const OBJECT_BYTES = 40;
/** Reductions a unit of work is charged (docs/processes.md, "Work in primitives"). */
const UNIT_REDUCTIONS = 8;

const FLAT_LIST = 1;
const FLAT_VECTOR = 2;
const COUNT = 3;
const GRAPH = 4;
const DONE = 5;

/**
 * Start copying `x`: its copy when it fits in one chunk, else a CopyJob whose `run`
 * goes on (the first chunk done).
 * @param {any} x
 * @returns {any}
 */
export function beginCopy(x) {
  const small = copySmall(x, true);
  if (small !== GIVE_UP) return small;
  const job = new CopyJob(x);
  return job.run() ? job.result : job;
}

/** A copy in progress (see the file header). */
export class CopyJob {
  /** @param {any} root */
  constructor(root) {
    this.root = root;
    /** @type {any} the copy (partial until `run` answers true) */
    this.result = null;
    /** units of work done so far (the heap account counts them as objects held) */
    this.units = 0;
    this.stage = root instanceof Pair ? FLAT_LIST : Array.isArray(root) ? FLAT_VECTOR : COUNT;
    // the flat copy's position: the pair or index to copy next, the copy's last pair, the tortoise
    /** @type {any} */ this.from = root;
    /** @type {any} */ this.to = null;
    /** @type {any} */ this.slow = root;
    this.i = 0;
    /** @type {GraphCopy|null} */ this.graph = null;
    /** units of the graph copy's next chunk (sized by time: graphChunk) */
    this.graphUnits = GRAPH_CHUNK;
    /** the key naming it in `!`'s step state, and the receiver (set by prims-processes.js) */
    this.key = 0;
    /** @type {any} */ this.pid = null;
  }

  /** Bytes the partial copy is estimated to hold (the sender's heap account). */
  get bytes() {
    return this.units * OBJECT_BYTES;
  }

  /** Do one chunk of the copy; true when it is complete (`result`). */
  run() {
    const before = this.units;
    // a flat copy given up early goes on to the count in the same call (a medium message
    // stays one call), so a call does at most about three chunks' work
    while (this.stage !== DONE && this.units - before < COPY_CHUNK) {
      if (this.stage === GRAPH) {
        this.graphChunk();
        break;
      }
      if (this.stage === FLAT_LIST) this.flatList();
      else if (this.stage === FLAT_VECTOR) this.flatVector();
      else this.count();
    }
    charge((this.units - before) * UNIT_REDUCTIONS);
    return this.stage === DONE;
  }

  /** Copy on along a list spine of shared elements, at most COPY_CHUNK pairs. */
  flatList() {
    let from = this.from;
    let to = this.to;
    let slow = this.slow;
    let n = this.units;
    if (to === null) this.result = to = new Pair(null, null);
    const stop = n + COPY_CHUNK;
    for (;;) {
      const a = from.car;
      if (!isShared(a)) return this.notFlat(n);
      to.car = a;
      const d = from.cdr;
      n++;
      if (d instanceof Pair && !Object.isFrozen(d)) {
        if ((n & 1) === 0) {
          slow = slow.cdr;
          if (slow === d) return this.notFlat(n); // a cyclic spine: the graph copy keeps the cycle
        }
        const next = new Pair(null, null);
        to.cdr = next;
        to = next;
        from = d;
        if (n >= stop) break;
        continue;
      }
      if (!isShared(d)) return this.notFlat(n);
      to.cdr = d;
      this.units = n;
      return this.finish();
    }
    this.from = from;
    this.to = to;
    this.slow = slow;
    this.units = n;
  }

  /** Copy on the elements of a vector of shared elements, at most COPY_CHUNK. */
  flatVector() {
    const v = this.root;
    if (this.result === null) {
      if (Object.isFrozen(v)) return this.finish((this.result = v));
      this.result = new Array(v.length);
    }
    const out = this.result;
    const end = Math.min(out.length, this.i + COPY_CHUNK);
    let i = this.i;
    for (; i < end; i++) {
      const e = v[i];
      if (!isShared(e)) return this.notFlat(this.units + i - this.i);
      out[i] = e;
    }
    this.units += i - this.i;
    this.i = i;
    if (i === out.length) this.finish();
  }

  /** The flat copy met something it cannot share: dropped, the count comes next. @param {number} units */
  notFlat(units) {
    this.units = units;
    this.result = this.to = this.from = this.slow = null;
    this.stage = COUNT;
  }

  /** Count the message as a tree up to COPY_CHUNK objects: copied in one call under it. */
  count() {
    const n = treeSize(this.root, COPY_CHUNK);
    if (n < COPY_CHUNK) {
      this.result = graphCopy(this.root); // charges its copy, as a one-call copy always did
      this.finish();
      return;
    }
    this.units += n;
    this.graph = new GraphCopy(this.root);
    this.result = this.graph.result;
    this.stage = GRAPH;
  }

  /** One chunk of the graph copy, its size set from the time the previous one took. */
  graphChunk() {
    const g = /** @type {GraphCopy} */ (this.graph);
    const before = g.units;
    const started = performance.now();
    const done = g.run(this.graphUnits);
    const ms = performance.now() - started;
    this.units += g.units - before;
    if (done) return this.finish();
    if (ms > GRAPH_CHUNK_MS) this.graphUnits = Math.max(GRAPH_CHUNK_MIN, this.graphUnits >> 1);
    else if (ms < GRAPH_CHUNK_MS / 2) this.graphUnits = Math.min(GRAPH_CHUNK_MAX, this.graphUnits * 2);
  }

  /** @param {any} [_] */
  finish(_) {
    this.stage = DONE;
    this.from = this.to = this.slow = this.graph = null;
  }
}

/**
 * Objects of `x` counted as a tree (a shared object once per path to it, a cycle until
 * the limit), up to `limit`: a walk with no allocation but its stack.
 * @param {any} x @param {number} limit
 */
function treeSize(x, limit) {
  const stack = [x];
  let n = 0;
  while (stack.length > 0) {
    const y = stack.pop();
    if (typeof y !== 'object' || y === null) continue;
    if (y instanceof Pair) {
      // a list's spine walked in place: its pairs' cars go on the stack
      let p = y;
      do {
        if (Object.isFrozen(p)) break;
        if (++n >= limit) return limit;
        stack.push(p.car);
        p = p.cdr;
      } while (p instanceof Pair);
      if (!(p instanceof Pair)) stack.push(p);
      continue;
    }
    if (isShared(y)) continue;
    if (++n >= limit) return limit;
    const parts = Array.isArray(y) ? y : y instanceof Closure ? y.fv : y instanceof Record ? y.f : y instanceof Frame ? y.s : y instanceof Values ? y.vals : null;
    if (parts !== null) {
      if (parts.length >= limit - n) return limit;
      for (let i = 0; i < parts.length; i++) stack.push(parts[i]);
    }
    if (y instanceof Box) stack.push(y.v);
    else if (y instanceof Frame) stack.push(y.next);
    else if (y instanceof ErrorObject) stack.push(y.irritants);
    else if (y instanceof Uint8Array || y instanceof MString) n += byteUnits(y);
  }
  return n;
}

/** Units a bytevector's or mutable string's copy counts for. @param {Uint8Array|MString} x */
function byteUnits(x) {
  const n = x instanceof Uint8Array ? x.byteLength : x.cp !== null ? x.cp.length * 4 : (x.s ?? '').length * 2;
  return n >> 6;
}

/**
 * The graph copy in chunks: a memo (sharing and cycles kept) and a stack of tasks; a
 * task answers true when its object is filled, false when the chunk's units ran out
 * (it is pushed back and resumes where it stopped). Objects are created empty and
 * filled by their task, which is what makes cycles work.
 */
class GraphCopy {
  /** @param {any} root */
  constructor(root) {
    this.memo = new SegmentedMemo();
    /** @type {(() => boolean)[]} */ this.tasks = [];
    this.left = Infinity;
    this.units = 0;
    this.result = this.copy(root);
  }

  /** Run tasks until none is left (true) or `limit` units are done (false). @param {number} limit */
  run(limit) {
    this.left = limit;
    const tasks = this.tasks;
    while (tasks.length > 0 && this.left > 0) {
      const t = /** @type {() => boolean} */ (tasks.pop());
      // a task's own step is work too: one that makes nothing new (a pair of numbers,
      // all its parts met before) would otherwise cost the chunk nothing, and the
      // hundreds of thousands a list of small pairs leaves would all run in its last chunk
      this.left--;
      if (!t()) tasks.push(t);
    }
    return tasks.length === 0;
  }

  /** The copy of `x` (created, its contents filled by a task) @param {any} x @returns {any} */
  copy(x) {
    if (isShared(x)) return x;
    const seen = this.memo.get(x);
    if (seen !== undefined) return seen;
    this.left--;
    this.units++;
    const out = this.shell(x);
    if (out !== x) this.memo.set(x, out);
    return out;
  }

  /**
   * An empty copy of x, with the task that fills it pushed (x itself if it is shared).
   * size: one branch per kind of object, as in copy.js's graphCopyWith.
   * @param {any} x
   */
  shell(x) {
    const copy = (/** @type {any} */ v) => this.copy(v);
    if (x instanceof Pair) {
      const out = new Pair(null, null);
      this.tasks.push(this.spine(x, out));
      return out;
    }
    if (Array.isArray(x)) {
      const out = new Array(x.length);
      this.tasks.push(this.elements(x, out));
      return out;
    }
    if (x instanceof Uint8Array) return this.bytes(x, x.slice());
    if (x instanceof MString) return this.bytes(x, copyString(x));
    if (x instanceof Closure) {
      if (x.fv === null || x.fv.length === 0) return x;
      const fv = new Array(x.fv.length);
      this.tasks.push(this.elements(x.fv, fv));
      const out = new Closure(x.fn, x.lam, fv);
      return out;
    }
    if (x instanceof Box) {
      const out = new Box(null);
      this.tasks.push(() => ((out.v = copy(x.v)), true));
      return out;
    }
    if (x instanceof Record) {
      const out = new Record(x.rtd, new Array(x.f.length));
      this.tasks.push(this.elements(x.f, out.f));
      return out;
    }
    if (x instanceof Frame) {
      const out = new Frame(x.lam, x.label, new Array(x.s.length), null);
      this.tasks.push(() => ((out.next = copy(x.next)), true), this.elements(x.s, out.s));
      return out;
    }
    if (x instanceof Values) {
      const out = new Values(new Array(x.vals.length));
      this.tasks.push(this.elements(x.vals, out.vals));
      return out;
    }
    if (x instanceof ErrorObject) {
      const out = new ErrorObject(x.message, null, x.kind, x.who);
      out.loc = x.loc;
      this.tasks.push(() => ((out.irritants = copy(x.irritants)), true));
      return out;
    }
    if (x instanceof Port) return copyPort(x);
    return x; // pids, tags, nodes, symbols, chars, flonums, ratnums, specials: immutable
  }

  /** A copied bytevector or string, its size counted. @param {any} x @param {any} out */
  bytes(x, out) {
    const n = byteUnits(x);
    this.left -= n;
    this.units += n;
    return out;
  }

  /**
   * The task that fills a list's copy: the spine followed in a loop, each pair not met
   * before copied at once; it stops after a pair once the chunk's units are spent.
   * @param {Pair} x @param {Pair} out
   */
  spine(x, out) {
    let from = x;
    let to = out;
    return () => {
      const memo = this.memo;
      for (;;) {
        to.car = this.copy(from.car);
        const d = from.cdr;
        if (d instanceof Pair && !Object.isFrozen(d) && !memo.has(d)) {
          const next = new Pair(null, null);
          memo.set(d, next);
          to.cdr = next;
          to = next;
          from = d;
          this.units++;
          if (--this.left <= 0) return false;
          continue;
        }
        to.cdr = this.copy(d);
        return true;
      }
    };
  }

  /**
   * The task that fills `out` with copies of the elements of `a`, resuming at its index.
   * @param {any[]} a @param {any[]} out
   */
  elements(a, out) {
    let i = 0;
    return () => {
      const n = out.length;
      while (i < n) {
        if (this.left <= 0) return false;
        out[i] = this.copy(a[i]);
        i++;
        this.left--;
        this.units++;
      }
      return true;
    };
  }
}
