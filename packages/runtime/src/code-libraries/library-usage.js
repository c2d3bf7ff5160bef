// @ts-check
/**
 * Which live processes of a node use which versioned library, for the dashboard: a
 * process uses a library when code it holds — its pending call (while it is to be made), the
 * value it is to return (while it is to be returned), its continuation's
 * frames, a closure among the values those keep (free values, saved live values, list
 * and vector elements, boxes, records, its dynamic state) — is the library's own code,
 * or program code that requires the library.
 *
 * Invariants:
 *  - bounded work whatever processes hold: at most MAX_PROCESSES processes and
 *    MAX_VISITS objects a walk, VISITS_PER_PROCESS per process (a process holding more
 *    may use a library it is not listed for: the listing is for people, not for
 *    unloading); each container is visited once per process (a Set), so cycles end;
 *  - the libraries of a unit are computed once per unit (a WeakMap), from its
 *    environment and its `requires`;
 *  - messages still queued in a mailbox are not looked at (they are in the core).
 */
import { ACT_CALL, ACT_RETURN } from '@termite/scheme/internal';
import { Pair, Box, Record, Closure, Frame } from '../scheme-data.js';

/** Processes one walk looks at, at most. */
const MAX_PROCESSES = 10_000;
/** Objects one walk visits, at most (all processes together). */
const MAX_VISITS = 200_000;
/** Objects visited in one process, at most. */
const VISITS_PER_PROCESS = 2_000;
/** Pids listed per library (the count is of all its users found). */
const PIDS_LISTED = 16;

/** @type {WeakMap<object, string[]>} unit instance → library namespaces its code uses */
const unitLibraries = new WeakMap();

/**
 * The library namespaces a unit's code is, or requires.
 * @param {any} unit a unit instance (lam.unit)
 */
function librariesOf(unit) {
  let libs = unitLibraries.get(unit);
  if (libs === undefined) {
    const own = unit.env?.id;
    const set = new Set(typeof own === 'string' && own.startsWith('lib:') ? [own] : []);
    for (const ns of unit.wire?.requires ?? []) if (typeof ns === 'string' && ns.startsWith('lib:')) set.add(ns);
    libs = [...set];
    unitLibraries.set(unit, libs);
  }
  return libs;
}

/**
 * The library namespaces whose code the values reachable from `roots` use (bounded).
 * @param {any[]} roots @param {number} budget objects it may visit
 * @returns {{found: Set<string>, visited: number}}
 */
function librariesHeld(roots, budget) {
  /** @type {Set<string>} */
  const found = new Set();
  const seen = new Set();
  const todo = roots.slice();
  let visited = 0;
  while (todo.length > 0 && visited < budget) {
    const x = todo.pop();
    if (x === null || typeof x !== 'object' || seen.has(x)) continue;
    seen.add(x);
    visited++;
    if (x instanceof Closure) {
      if (x.lam?.unit) for (const ns of librariesOf(x.lam.unit)) found.add(ns);
      if (Array.isArray(x.fv)) todo.push(...x.fv);
    } else if (x instanceof Frame) {
      if (x.lam?.unit) for (const ns of librariesOf(x.lam.unit)) found.add(ns);
      if (Array.isArray(x.s)) todo.push(...x.s);
      todo.push(x.next);
    } else if (x instanceof Pair) {
      todo.push(x.car, x.cdr);
    } else if (Array.isArray(x)) {
      if (x.length <= budget) todo.push(...x);
    } else if (x instanceof Box) {
      todo.push(x.v);
    } else if (x instanceof Record) {
      if (Array.isArray(x.f)) todo.push(...x.f);
    }
  }
  return { found, visited };
}

/**
 * Each library namespace used by live processes of `node`: how many, and the first
 * PIDS_LISTED of their pids as the dashboard shows pids ("N@node8").
 * @param {any} node a TermiteNode
 * @returns {Map<string, {count: number, pids: string[]}>}
 */
export function libraryUsers(node) {
  return libraryUse(node).users;
}

/**
 * libraryUsers, and whether the walk was complete: every live process looked at, none
 * holding more than its share of visits (only a complete walk may say a library is unused).
 * @param {any} node a TermiteNode
 */
export function libraryUse(node) {
  /** @type {Map<string, {count: number, pids: string[]}>} */
  const users = new Map();
  let budget = MAX_VISITS;
  let looked = 0;
  let complete = true;
  const seen = new Set();
  for (const p of [...node.bySlot, ...node.guests.values()]) {
    if (p === undefined || !p.alive || seen.has(p)) continue;
    if (looked >= MAX_PROCESSES || budget <= 0) {
      complete = false;
      break;
    }
    seen.add(p);
    looked++;
    // the pending call is the thread's only while it is to be made (act ACT_CALL): a
    // thread that returned or waits keeps its last one in `clo`, which it no longer runs
    const call = p.act === ACT_CALL ? [p.clo, p.args] : [];
    // likewise its value register holds a value only while that is to be returned to its
    // continuation (act ACT_RETURN, not waiting): a thread about to call, or waiting (a
    // wake gives it a new value), keeps the last one there, dead — after a hot update,
    // code of the old version the new one will never run
    const val = p.act === ACT_RETURN && p.waiting === null ? [p.val] : [];
    const { found, visited } = librariesHeld([...call, ...val, p.k, p.winders, p.handlers, p.params], Math.min(VISITS_PER_PROCESS, budget));
    budget -= visited;
    if (visited >= VISITS_PER_PROCESS || visited >= budget + visited) complete = false;
    for (const ns of found) {
      let u = users.get(ns);
      if (u === undefined) users.set(ns, (u = { count: 0, pids: [] }));
      u.count++;
      if (u.pids.length < PIDS_LISTED) u.pids.push(`${p.pid.n}@${p.pid.node.slice(0, 8)}`);
    }
  }
  return { users, complete };
}
