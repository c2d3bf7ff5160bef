// @ts-check
/**
 * One node's replica of a distributed tuple space (L²imbo's DTS, docs/linda.md,
 * "Distributed spaces"): the tuples it caches, who owns each, the tuples it knows were
 * withdrawn (tombstones), the nodes it shares the space with, and the waiting `in`s
 * other members announced (for the RPC optimisation). The protocol that keeps replicas
 * converging is in dts-protocol.js; the operations of the processes in dts-operations.js.
 *
 * Invariants:
 *  - the core space is the matcher: every tuple in state LIVE has exactly one copy in
 *    the core space (stored by its bytes), and no other tuple has one — a tuple being
 *    acquired (HELD: this node asked its owner for it) is out of the core, so no other
 *    process of this node takes it meanwhile;
 *  - the owned space mirrors the tuples this node may withdraw: every LIVE tuple whose
 *    owner is this node has exactly one copy there too, and no other tuple has one
 *    (every change of owner goes through setOwner), so an `in` finds a match it owns
 *    without asking anyone even when an older match belongs to another node;
 *  - tuples with the same bytes are interchangeable in the core: removing "a tuple with
 *    these bytes" removes the copy of any of them, so the bookkeeping picks which id
 *    left (its own first); a copy is removed by its exact bytes (removeExactBytes), so a
 *    tuple holding formals (S/Net) takes out only its own copy, never an actual tuple it
 *    would match;
 *  - a withdrawn id is remembered (at most MAX_TOMBSTONES, the oldest forgotten first)
 *    and never comes back: an OUT or REPAIR_ACK naming it is ignored;
 *  - what a peer can make a replica keep is bounded: MAX_TUPLES tuples, MAX_MEMBERS
 *    members, MAX_REMOTE_INS announced `in`s per peer (the oldest dropped first);
 *  - an announced `in` stays until its process's DELETE (or cancel) arrives, and the new
 *    tuples it matches meanwhile go to the announcers in turn (claimRemoteIn).
 */
import { scratchSpace, clearScratch } from './scratch-space.js';
import { wakeDtsAsync } from './dts-async.js';

export const LIVE = 1, HELD = 2;
/** tuples one replica caches (an OUT beyond is refused) */
export const MAX_TUPLES = 100000;
/** withdrawn ids a replica remembers */
export const MAX_TOMBSTONES = 100000;
/** nodes one replica shares its space with */
export const MAX_MEMBERS = 1024;
/** waiting `in`s one peer may announce per space */
export const MAX_REMOTE_INS = 10000;

/** @typedef {{owner: string, bytes: Uint8Array, state: number, adoptedFrom?: string}} DtsTuple adoptedFrom: the member that owned it before it went away and this node adopted it */

/** The key of a tuple's bytes in byBytes. @param {Uint8Array} b */
function bytesKey(b) {
  let s = '';
  for (let i = 0; i < b.length; i += 8192) s += String.fromCharCode.apply(null, /** @type {any} */ (b.subarray(i, i + 8192)));
  return s;
}

export class Replica {
  /**
   * @param {any} node the TermiteNode @param {string} name @param {string} home the node that made the space
   * @param {any} space its core space
   */
  constructor(node, name, home, space) {
    this.node = node;
    this.name = name;
    this.home = home;
    this.space = space;
    /** @type {any} the core space of the LIVE tuples this node owns (made on first use) */
    this.owned = null;
    /** @type {Map<string, DtsTuple>} */
    this.tuples = new Map();
    /** @type {Map<string, Set<string>>} the ids of the tuples with these bytes */
    this.byBytes = new Map();
    /** @type {Set<string>} withdrawn ids (insertion order: the oldest first) */
    this.deleted = new Set();
    /** @type {Set<string>} the other nodes sharing the space */
    this.members = new Set();
    /** @type {Set<string>} members that went away (told about this replica when they come back) */
    this.departed = new Set();
    /** @type {Map<string, {from: string, req: number, template: Uint8Array}>} announced waiting ins, by `from/req` */
    this.remoteIns = new Map();
    /** @type {Map<number, Uint8Array>} the `in`s this node's processes announced and still wait on (told to a member that joins later) */
    this.myIns = new Map();
    /** @type {Map<string, number>} announced ins per peer */
    this.remoteInsPerPeer = new Map();
    /** @type {Map<string, string>} the node that last withdrew a tuple of each kind (kindKey) */
    this.lastTaker = new Map();
    /** @type {Map<string, any>} ids this node asked the owner for, and who waits for the answer */
    this.acquiring = new Map();
    /** @type {Map<string, string[]>} ownership requests for ids this node does not know yet */
    this.pendingChown = new Map();
    /** whether the join is done: the home's state and every member's arrived (a replica made elsewhere joins first) */
    this.ready = home === node.id;
    /** whether the home has answered the join */
    this.homeAnswered = home === node.id;
    /** @type {Set<string>} members asked for their state during the join */
    this.joinAsked = new Set();
    /** @type {Set<string>} those whose answer the join still waits for */
    this.joinPending = new Set();
    /** @type {string | undefined} why the join was refused */
    this.failed = undefined;
    /** @type {Array<() => void>} processes waiting for the join */
    this.joinWaiters = [];
    /** @type {ReturnType<typeof setTimeout> | undefined} the bound on the join (dts-protocol.js JOIN_TIMEOUT_MS) */
    this.joinTimer = undefined;
    /** @type {Set<any> | null} the asynchronous operations waiting here (dts-async.js) */
    this.asyncOps = null;
    /** whether they look again at the end of this task */
    this.asyncWake = false;
  }

  /** The ids known live or held. */
  get size() {
    return this.tuples.size;
  }

  /**
   * Add a tuple this replica did not know (from an out here, an OUT or a REPAIR_ACK):
   * false when it is known already, was withdrawn, or the replica is full.
   * @param {string} id @param {string} owner @param {Uint8Array} bytes
   */
  add(id, owner, bytes) {
    const had = this.tuples.get(id);
    if (had !== undefined) {
      this.setOwner(had, owner); // the newer word on its owner
      return false;
    }
    if (this.deleted.has(id)) return false;
    if (this.tuples.size >= MAX_TUPLES) throw new Error(`the replica of ${this.name} holds ${MAX_TUPLES} tuples`);
    this.space.outBytes(bytes);
    if (owner === this.node.id) this.ownedSpace().outBytes(bytes);
    this.tuples.set(id, { owner, bytes, state: LIVE });
    if (this.asyncOps !== null && this.asyncOps.size !== 0) wakeDtsAsync(this);
    const k = bytesKey(bytes);
    let ids = this.byBytes.get(k);
    if (ids === undefined) this.byBytes.set(k, (ids = new Set()));
    ids.add(id);
    return true;
  }

  /** The core space of the tuples this node owns. */
  ownedSpace() {
    if (this.owned === null) this.owned = this.node.core.createSpace();
    return this.owned;
  }

  /**
   * A tuple's owner changes: the owned space follows (a LIVE tuple enters it when this
   * node becomes its owner, and leaves it when another node does).
   * @param {DtsTuple} t @param {string} owner
   */
  setOwner(t, owner) {
    const self = this.node.id;
    if (t.state === LIVE && (t.owner === self) !== (owner === self)) {
      if (owner === self) this.ownedSpace().outBytes(t.bytes);
      else this.owned?.removeExactBytes(t.bytes);
    }
    t.owner = owner;
  }

  /**
   * The bytes of the oldest LIVE tuple this node owns that matches the template, or
   * undefined (the core's own matcher, on the owned space).
   * @param {Uint8Array} template
   */
  ownedMatch(template) {
    return this.owned === null ? undefined : this.owned.rdpBytes(template);
  }

  /** The replica is dropped (a failed join): its owned space is freed (the core space named by the space table stays). */
  dispose() {
    this.owned?.destroy();
    this.owned = null;
  }

  /**
   * The id of a live tuple with these bytes, this node's own first; null if none.
   * @param {Uint8Array} bytes
   */
  pick(bytes) {
    const ids = this.byBytes.get(bytesKey(bytes));
    if (ids === undefined) return null;
    /** @type {string | null} */
    let other = null;
    for (const id of ids) {
      const t = /** @type {DtsTuple} */ (this.tuples.get(id));
      if (t.state !== LIVE) continue;
      if (t.owner === this.node.id) return id;
      if (other === null) other = id;
    }
    return other;
  }

  /** Take a live tuple's copy out of the core (it is being withdrawn or acquired). @param {string} id */
  hold(id) {
    const t = /** @type {DtsTuple} */ (this.tuples.get(id));
    if (t.state === LIVE) {
      this.space.removeExactBytes(t.bytes);
      if (t.owner === this.node.id) this.owned?.removeExactBytes(t.bytes);
    }
    t.state = HELD;
    return t;
  }

  /** A held tuple goes back into the core (its acquisition failed, or its taker left). @param {string} id */
  release(id) {
    const t = this.tuples.get(id);
    if (t === undefined || t.state !== HELD) return;
    t.state = LIVE;
    this.space.outBytes(t.bytes);
    if (t.owner === this.node.id) this.ownedSpace().outBytes(t.bytes);
    if (this.asyncOps !== null && this.asyncOps.size !== 0) wakeDtsAsync(this);
    this.node.poke();
  }

  /**
   * The tuple was withdrawn (here or elsewhere): forgotten, its id remembered. Returns
   * the tuple, or undefined if it was not known.
   * @param {string} id
   */
  remove(id) {
    const t = this.tuples.get(id);
    this.tomb(id);
    if (t === undefined) return undefined;
    if (t.state === LIVE) {
      this.space.removeExactBytes(t.bytes);
      if (t.owner === this.node.id) this.owned?.removeExactBytes(t.bytes);
    }
    this.tuples.delete(id);
    const k = bytesKey(t.bytes);
    const ids = this.byBytes.get(k);
    ids?.delete(id);
    if (ids !== undefined && ids.size === 0) this.byBytes.delete(k);
    return t;
  }

  /** @param {string} id */
  tomb(id) {
    if (this.deleted.has(id)) return;
    this.deleted.add(id);
    if (this.deleted.size > MAX_TOMBSTONES) this.deleted.delete(/** @type {string} */ (this.deleted.values().next().value));
  }

  /**
   * Record a waiting `in` a member announced (dropping that peer's oldest beyond the bound).
   * @param {string} from @param {number} req @param {Uint8Array} template
   */
  noteRemoteIn(from, req, template) {
    const n = this.remoteInsPerPeer.get(from) ?? 0;
    if (n >= MAX_REMOTE_INS) {
      for (const [k, r] of this.remoteIns) {
        if (r.from === from) {
          this.dropRemoteIn(k);
          break;
        }
      }
    }
    this.remoteIns.set(`${from}/${req}`, { from, req, template });
    this.remoteInsPerPeer.set(from, (this.remoteInsPerPeer.get(from) ?? 0) + 1);
    if (!this.restricted(from)) this.noteTaker(from, template); // a template whose first field is an actual names the kind it waits for
  }

  /** Whether an asynchronous `in` of this node waits here (it is served first, as a waiting process is). */
  waitingAsyncIn() {
    if (this.asyncOps === null) return false;
    for (const r of this.asyncOps) if (r.remove) return true;
    return false;
  }

  /** Whether `who` is a restricted peer of this node (a tab): it is handed no tuple it did not ask for. @param {string} who */
  restricted(who) {
    const r = this.node.remote?.restricted;
    return r !== undefined && r !== null && r.size > 0 && r.has(who);
  }

  /** @param {string} k */
  dropRemoteIn(k) {
    const r = this.remoteIns.get(k);
    if (r === undefined) return;
    this.remoteIns.delete(k);
    const n = (this.remoteInsPerPeer.get(r.from) ?? 1) - 1;
    if (n <= 0) this.remoteInsPerPeer.delete(r.from);
    else this.remoteInsPerPeer.set(r.from, n);
  }

  /**
   * The RPC optimisation: the first announced `in` that matches a new tuple (its
   * requester will own the tuple); null if none. Matched by the core in a scratch space
   * of the node. Skipped when a process of this node waits on the space (it is served
   * first, as an owner). The announcement is kept, moved behind the others: until its
   * DELETE arrives, the next tuples it matches go to the announcers in turn (a burst of
   * tasks is spread over the workers that wait for them, each withdrawing its share
   * without a CHOWN round trip).
   * @param {Uint8Array} bytes
   */
  claimRemoteIn(bytes) {
    if (this.remoteIns.size === 0 || this.space.waiters > 0 || this.waitingAsyncIn()) return null;
    const scratch = scratchSpace(this.node);
    scratch.outBytes(bytes);
    try {
      for (const [k, r] of this.remoteIns) {
        let hit;
        try {
          hit = scratch.rdpBytes(r.template);
        } catch {
          hit = undefined; // a template the core refuses matches nothing
        }
        if (hit !== undefined) {
          if (this.restricted(r.from)) this.dropRemoteIn(k); // a tab's announcement gets one tuple, as it asked
          else {
            this.remoteIns.delete(k); // to the back: the next match goes to the next announcer
            this.remoteIns.set(k, r);
          }
          return r.from;
        }
      }
      return null;
    } finally {
      clearScratch(this.node, scratch, bytes);
    }
  }

  /**
   * The RPC optimisation by observation (L²imbo): with no announced `in` for a new tuple,
   * the member that last withdrew a tuple of its kind (same arity, same first field) —
   * a server that has not announced its next `in` yet — is likely to take it. Null if
   * none, or that was this node.
   * @param {Uint8Array} bytes
   */
  likelyTaker(bytes) {
    if (this.lastTaker.size === 0 || this.space.waiters > 0 || this.waitingAsyncIn()) return null; // a process of this node waits: it comes first
    const k = kindKey(bytes);
    const who = k === null ? undefined : this.lastTaker.get(k);
    return who !== undefined && who !== this.node.id && this.members.has(who) ? who : null;
  }

  /** `who` withdrew a tuple with these bytes. @param {string} who @param {Uint8Array} bytes */
  noteTaker(who, bytes) {
    const k = kindKey(bytes);
    if (k === null) return;
    if (this.lastTaker.size >= 1024 && !this.lastTaker.has(k)) this.lastTaker.clear(); // bounded
    this.lastTaker.set(k, who);
  }

  /** Every live tuple as [id, owner, bytes] (for a REPAIR_ACK). */
  liveTuples() {
    /** @type {any[]} */
    const out = [];
    for (const [id, t] of this.tuples) out.push([id, t.owner, t.bytes]);
    return out;
  }
}

/**
 * A tuple's kind for likelyTaker: its array head and first field's bytes (a tuple whose
 * first field is longer than 64 bytes, or that cannot be read, has none).
 * @param {Uint8Array} b
 * @returns {string | null}
 */
export function kindKey(b) {
  const head = itemEnd(b, 0, 0);
  if (head < 0) return null;
  const first = arrayStart(b);
  if (first < 0) return null;
  const end = itemEnd(b, first, 0);
  if (end < 0 || end - first > 64) return null;
  return bytesKey(b.subarray(0, first)) + bytesKey(b.subarray(first, end));
}

/** Where an array's first item starts (after its head), or -1. @param {Uint8Array} b */
function arrayStart(b) {
  if (b.length === 0 || (b[0] & 0xe0) !== 0x80) return -1;
  const ai = b[0] & 0x1f;
  return ai < 24 ? 1 : ai === 24 ? 2 : ai === 25 ? 3 : ai === 26 ? 5 : ai === 27 ? 9 : -1;
}

/**
 * Where the CBOR item at `i` ends, or -1 (malformed, indefinite, or nested too deep).
 * For an array at depth 0 only its head is read (the caller wants the first field).
 * @param {Uint8Array} b @param {number} i @param {number} depth
 * @returns {number}
 */
function itemEnd(b, i, depth) {
  if (i >= b.length || depth > 8) return -1;
  const major = b[i] >> 5, ai = b[i] & 0x1f;
  const n = ai < 24 ? 0 : ai === 24 ? 1 : ai === 25 ? 2 : ai === 26 ? 4 : ai === 27 ? 8 : -1;
  if (n < 0 || i + 1 + n > b.length) return -1;
  let v = ai < 24 ? ai : 0;
  for (let k = 0; k < n; k++) v = v * 256 + b[i + 1 + k];
  let at = i + 1 + n;
  if (major === 2 || major === 3) return at + v <= b.length ? at + v : -1;
  if (major === 6) return itemEnd(b, at, depth + 1);
  if (major === 4 || major === 5) {
    if (depth === 0 && major === 4) return at; // the head of the tuple itself
    const items = major === 5 ? v * 2 : v;
    if (items > 64) return -1;
    for (let k = 0; k < items && at >= 0; k++) at = itemEnd(b, at, depth + 1);
    return at;
  }
  return at; // integers, simple values, floats
}
