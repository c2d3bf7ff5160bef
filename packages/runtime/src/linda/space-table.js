// @ts-check
/**
 * The tuple spaces a node holds: each one's core space (the matcher), its kind, its
 * counters for the dashboard, and — for a central space on a node given a SpaceStore
 * (a daemon with `--data`) — its log, so that its tuples outlive the node.
 *
 * Invariants:
 *  - the core is the matcher, the store is the log: every tuple of a durable space that
 *    is in the core is a row of the store; a tuple is appended before `out` returns and
 *    removed once its withdrawal is final (a local `in`: at once; a remote `in`: when the
 *    requester's node acknowledges it, linda/remote-spaces.js);
 *  - at start (attachSpaceStore) the log is replayed into the core in the order it was
 *    written, so the oldest tuple is still the one an `in` takes first;
 *  - a tuple that enters a space through putTuple or putBackTuple is offered by the
 *    core to its waiters — processes and waiter records (core-records.js) in one order —
 *    and the records it served are answered at once;
 *  - a space's kind is set when it is made and never changes (a later make of the same
 *    name with another kind gets the kind it already has, see declareSpace).
 */
import { answerServedRecords } from './core-records.js';

/**
 * The durable log of central spaces, implemented outside the runtime (SQLite in the
 * daemon: node-daemon/src/space-store.js). Every call is synchronous: `append` has
 * returned only once the tuple is in the log.
 * @typedef {object} SpaceStore
 * @property {(space: string) => void} declare record a durable space (kept even while empty)
 * @property {(space: string, tuple: Uint8Array) => void} append log a tuple put into the space
 * @property {(space: string, tuple: Uint8Array) => boolean} remove drop one logged tuple with these bytes (false: none)
 * @property {() => Array<{space: string, tuples: Uint8Array[]}>} load every durable space and its tuples, oldest first
 * @property {() => void} [close]
 */

/**
 * @typedef {object} SpaceInfo
 * @property {string} kind 'local', 'central' or 'distributed'
 * @property {boolean} durable whether its tuples are logged in the node's store
 * @property {number} outs tuples put in (since the node started)
 * @property {number} ins tuples withdrawn
 */

/**
 * The node's space table, made on first use.
 * @param {any} node a TermiteNode
 * @returns {{info: Map<string, SpaceInfo>, store: SpaceStore | null, durable: number, records?: Map<string, any[]>}}
 */
export function spaceTable(node) {
  if (node.spaceTable === undefined) node.spaceTable = { info: new Map(), store: null, durable: 0 };
  return node.spaceTable;
}

/**
 * The core space named `name` of this node, created (with its kind) on first use.
 * @param {any} node @param {string} name @param {string} [kind] the kind it gets if new
 */
export function coreSpace(node, name, kind = 'local') {
  let s = node.spaces.get(name);
  if (s === undefined) {
    s = node.core.createSpace();
    node.spaces.set(name, s);
    declareSpace(node, name, kind);
  }
  return s;
}

/**
 * Record a space's kind if it has none yet; returns the kind it has. A central space on
 * a node with a store becomes durable.
 * @param {any} node @param {string} name @param {string} kind
 */
export function declareSpace(node, name, kind) {
  const t = spaceTable(node);
  const had = t.info.get(name);
  if (had !== undefined) return had.kind;
  const durable = kind === 'central' && t.store !== null;
  t.info.set(name, { kind, durable, outs: 0, ins: 0 });
  if (durable) {
    t.store?.declare(name);
    t.durable++;
  }
  if (!node.spaces.has(name)) node.spaces.set(name, node.core.createSpace());
  return kind;
}

/** The kind of a space of this node ('local' for one not made yet). @param {any} node @param {string} name */
export function kindOf(node, name) {
  return spaceTable(node).info.get(name)?.kind ?? 'local';
}

/**
 * Put a tuple into a space: logged first if the space is durable (and dropped from the
 * log again if the core refuses it), so an `out` that returns has its tuple in the log.
 * @param {any} node @param {string} name @param {any} space its core space @param {Uint8Array} bytes
 */
export function putTuple(node, name, space, bytes) {
  const t = node.spaceTable;
  const info = t === undefined ? undefined : t.info.get(name);
  if (info === undefined) {
    space.outBytes(bytes);
    if (node.coreRecords !== undefined) answerServedRecords(node, space, bytes, putBackTuple);
    return;
  }
  if (info.durable) {
    t.store.append(name, bytes);
    try {
      space.outBytes(bytes);
    } catch (e) {
      t.store.remove(name, bytes);
      throw e;
    }
  } else {
    space.outBytes(bytes);
  }
  info.outs++;
  if (node.coreRecords !== undefined) answerServedRecords(node, space, bytes, putBackTuple);
}

/**
 * A withdrawn tuple goes back into its space (it is still in the log of a durable
 * space), and to a waiter record it matches.
 * @param {any} node @param {string} name @param {Uint8Array} bytes
 */
export function putBackTuple(node, name, bytes) {
  const space = coreSpace(node, name);
  space.outBytes(bytes);
  if (node.coreRecords !== undefined) answerServedRecords(node, space, bytes, putBackTuple);
  node.poke();
}

/**
 * A tuple left a space for good (counted; dropped from the log if the space is durable).
 * @param {any} node @param {string} name @param {Uint8Array} bytes
 */
export function noteWithdrawn(node, name, bytes) {
  const t = node.spaceTable;
  if (t === undefined) return;
  const info = t.info.get(name);
  if (info === undefined) return;
  info.ins++;
  if (info.durable && !t.store.remove(name, bytes)) node.log(`space ${name}: a withdrawn tuple was not in the log`);
}

/**
 * Give the node its durable store and replay it: every logged space becomes a durable
 * central space of this node, holding its logged tuples, oldest first. Returns how many
 * tuples were replayed.
 * @param {any} node @param {SpaceStore} store
 */
export function attachSpaceStore(node, store) {
  const t = spaceTable(node);
  if (t.store !== null) throw new Error('this node already has a space store');
  t.store = store;
  let n = 0;
  for (const { space, tuples } of store.load()) {
    const info = t.info.get(space);
    if (info !== undefined && !info.durable) throw new Error(`space ${space} exists already as a ${info.kind} space; the store must be attached before it is made`);
    if (info === undefined) declareSpace(node, space, 'central');
    const s = node.spaces.get(space);
    for (const bytes of tuples) {
      s.outBytes(bytes);
      n++;
    }
  }
  return n;
}

/**
 * The spaces of this node for the dashboard: name, kind, home (the node that holds it,
 * or for a distributed space's replica the node that made the space), tuples, whether
 * durable, and the counts of tuples in and out by this node's operations (for a replica:
 * the `out`s and withdrawals made here, so the rows of one distributed space add up to
 * its traffic).
 * @param {any} node
 */
export function spaceSummaries(node) {
  const t = spaceTable(node);
  /** @type {Map<string, {home: string}> | undefined} dts-protocol.js's replicas (read here, not imported: that module imports this one) */
  const reps = node.dtsReplicas;
  return [...node.spaces.entries()].map(([name, s]) => {
    const info = t.info.get(name);
    const kind = info?.kind ?? 'local';
    const home = kind === 'distributed' ? reps?.get(name)?.home ?? node.id : node.id;
    return { name, kind, home, durable: info?.durable ?? false, tuples: s.size, outs: info?.outs ?? 0, ins: info?.ins ?? 0 };
  });
}
