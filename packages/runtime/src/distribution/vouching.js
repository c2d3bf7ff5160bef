// @ts-check
/**
 * Vouching for the pids of a third node that this node gives a restricted peer
 * (docs/security.md, "A pid of a third node that a daemon hands a tab").
 *
 * What a restricted peer T may reach of a node B is what B gave it (capabilities.js).
 * When this node A writes to T a frame, request or answer holding pids of processes of
 * another node B (a service's pid A passes on, a reply-to pid) or references to B's
 * local spaces, A tells B with request VOUCH, `[36, T, browser?, serials(, names)]`: "I
 * gave these pids and spaces of yours to T" (`vouchFor`, called by capabilities.js
 * `give` before the frame to T is written, so the request leaves on the link to B
 * first). The same holds for a message delivered on A to a process of T that lives on A
 * (a local `!`, or a SEND frame from another node; capabilities.js `giveToProcessOf`):
 * that process acts on B as T. B believes a daemon
 * peer about it, as it believes its browser marks and AS owners, and records the serials
 * and names as given to T (`acceptVouch`); central and distributed spaces need no vouch,
 * and B leaves them out.
 *
 * The order problem: T's first frame to such a pid may reach B over a direct link to B
 * before A's request does (a frame routed through A follows the request on the link A–B,
 * and the request is answered in the task it arrives in). So B does not refuse at once a
 * frame from T that it would refuse for an ungiven pid: it holds it for at most HOLD_MS,
 * and takes it as soon as a vouch makes it acceptable (`holdUngiven`, `replayHeld`). A
 * later frame from T for a process that has a held frame waits behind it (the order of
 * messages between two processes is kept). A Linda operation of T on a space not given
 * is held the same way (`holdSpaceOp`, asked by one-way-frames.js before the SPACE_OP
 * handler), and once its time is up it is handed to that handler, which refuses it with
 * its answer. Only frames that would be refused are held: a frame B takes costs nothing
 * more.
 *
 * Invariants:
 *  - A tells B each pid and space once per T (`told`, at most MAX_GIVEN per T and B, the
 *    oldest forgotten first), in one request per frame and third node, and only while T
 *    is restricted here; pids and spaces of T's own node, of restricted nodes and of
 *    this node are never vouched for, nor distributed spaces (a reference's kind is the
 *    giver's guess — `remote-space` says central — so B keeps only its local ones);
 *    nothing is vouched for what a restricted peer or a process of one wrote (a message
 *    from one to T's process here: capabilities.js `giveToProcessOf`);
 *  - B takes VOUCH from a restricted peer only for what that peer holds itself, whole
 *    or not at all (passing-on.js); it records only serials of its live
 *    processes and names of its existing local spaces; what one vouching node has made
 *    it record is at most MAX_GIVEN (T, serial or space) entries (`vouchedBy`: when
 *    full, entries of processes that ended, spaces that are gone, or that T no longer
 *    holds are swept, once a second at most), and a request beyond is refused whole,
 *    with the reason, logged;
 *  - held frames: at most MAX_HELD frames and HELD_BYTES bytes per peer, TOTAL_HELD_BYTES
 *    for the node; beyond, or after HOLD_MS, a frame is refused as it would have been;
 *  - a request from T refused for a pid not given (a SPAWN or MIGRATE naming it, a
 *    SERVICE whose process it is: capabilities.js NotGiven) is asked again when a vouch
 *    for T is recorded, within HOLD_MS (`answerAfterVouch`; MAX_WAITING at once, MAX_WAITING_EACH
 *    per peer), then
 *    refused with its reason.
 *
 * These functions are Distribution's methods (`this` is the Distribution).
 */
import { MAX_GIVEN, WALK_LIMIT, NotGiven } from './capabilities.js';
import { R_VOUCH } from './frame-vocabulary.js';
import { Pid } from '../termite-values.js';
import { kindOf, spaceTable } from '../linda/space-table.js';
import { F_SPACE_OP, F_SPACE_ACK, OP } from '../linda/remote-spaces.js';

/** How long a frame from a restricted peer naming an ungiven pid waits for a vouch (ms). */
export const HOLD_MS = 1000;
/** Frames held for one peer at once. */
export const MAX_HELD = 256;
/** Bytes of frames held for one peer at once. */
export const HELD_BYTES = 4 << 20;
/** Bytes of frames held for all peers at once. */
export const TOTAL_HELD_BYTES = 64 << 20;
/** Requests from restricted peers waiting for a vouch at once (all peers). */
export const MAX_WAITING = 1024;
/** Requests from one restricted peer waiting for a vouch at once. */
export const MAX_WAITING_EACH = 64;

/** @typedef {import('../distribution.js').Distribution} Distribution */
/** @typedef {{f: any[], bytes: Uint8Array, target: string, until: number, space: boolean}} Held a frame held; `space`: a Linda operation (its target "space NAME") */
/** The longest space name a VOUCH may carry (as a SPACE_OP's, linda/remote-spaces.js). */
const MAX_SPACE_NAME = 256;
/**
 * @typedef {object} VouchState
 * @property {Map<string, Map<string, Set<number | string>>>} told restricted peer → third node → serials and space names told it
 * @property {Map<string, Set<string>>} vouchedBy vouching node → "peer serial" and "peer\nspace" entries it had this node record
 * @property {Map<string, number>} sweptAt vouching node → when its entries were last swept (ms)
 * @property {Map<string, Held[]>} held restricted peer → its frames held for a vouch, in arrival order
 * @property {Map<string, ReturnType<typeof setTimeout>>} timers restricted peer → the timer of its oldest held frame
 * @property {Map<string, Set<(ok: boolean) => void>>} arrivals restricted peer → its requests waiting for a vouch
 * @property {number} waiting requests waiting for a vouch (all peers)
 * @property {number} heldBytes bytes held for all peers
 * @property {{since: number, count: number}} failures the log window of vouches that failed
 * @property {number} sent VOUCH requests sent
 * @property {number} recorded pids and spaces recorded on others' word
 */

/** @param {Distribution} d @returns {VouchState} */
function state(d) {
  return d.vouchState ??= {
    told: new Map(), vouchedBy: new Map(), sweptAt: new Map(), held: new Map(), timers: new Map(), arrivals: new Map(), waiting: 0,
    heldBytes: 0, failures: { since: -Infinity, count: 0 }, sent: 0, recorded: 0,
  };
}

/** Add to a bounded oldest-first set. @template T @param {Set<T>} set @param {T} item */
function remember(set, item) {
  set.add(item);
  if (set.size > MAX_GIVEN) set.delete(/** @type {T} */ (set.values().next().value));
}

// ------------------------------------------------------------ the giving node

/**
 * Tell each third node which of its pids (serials) and spaces (names) this node
 * just gave the restricted peer `to` (collected by capabilities.js `give`: node →
 * items), those not told before. One VOUCH request per node, `[36, to, browser?,
 * serials]`, with the names as a fifth item when there are any; a failure is logged
 * (once a second at most).
 * @param {string} to @param {Map<string, (number | string)[]>} thirds
 * @this {Distribution}
 */
export function vouchFor(to, thirds) {
  const st = state(this);
  let byNode = st.told.get(to);
  if (byNode === undefined) st.told.set(to, (byNode = new Map()));
  const browser = this.browserPeers.has(to);
  for (const [node, items] of thirds) {
    if (node === to || this.restricted.has(node)) continue; // a peer's own pids, or a node that would not believe this one
    let told = byNode.get(node);
    if (told === undefined) byNode.set(node, (told = new Set()));
    /** @type {(number | string)[]} */
    const fresh = [];
    for (const n of items) {
      if (told.has(n)) continue;
      remember(told, n);
      fresh.push(n);
    }
    if (fresh.length === 0) continue;
    st.sent++;
    const failed = (/** @type {unknown} */ e) => {
      for (const n of fresh) /** @type {Set<number | string>} */ (told).delete(n); // told again with the next frame that names it
      noteFailure(this, st, `vouching to ${node.slice(0, 12)} for ${fresh.length} pid(s) or space(s) given to ${to.slice(0, 12)} failed: ${e instanceof Error ? e.message : String(e)}`);
    };
    const serials = fresh.filter((n) => typeof n === 'number'), names = fresh.filter((n) => typeof n === 'string');
    try {
      this.call(node, names.length === 0 ? [R_VOUCH, to, browser, serials] : [R_VOUCH, to, browser, serials, names]).catch(failed); // sent now: before the frame to `to`
    } catch (e) {
      failed(e); // the frame to the peer goes anyway
    }
  }
}

/** Log a failed vouch, once a second at most. @param {Distribution} d @param {VouchState} st @param {string} line */
function noteFailure(d, st, line) {
  const now = Date.now();
  if (now - st.failures.since < 1000) {
    st.failures.count++;
    return;
  }
  if (st.failures.count > 0) d.log(`${st.failures.count} more vouches failed in the last second (not logged one by one)`);
  st.failures.since = now;
  st.failures.count = 0;
  d.log(line);
}

/** A restricted peer is forgotten: what this node told others about it goes too. @param {string} peer @this {Distribution} */
export function forgetVouches(peer) {
  this.vouchState?.told.delete(peer);
}

// ------------------------------------------------------------ the node that holds the pids

/**
 * The answer to a request from the restricted peer `from` refused for a pid not given
 * (`refused`, a NotGiven): asked again each time a vouch for `from` is recorded, until
 * HOLD_MS after it came; then the last refusal is thrown.
 * @param {string} from @param {any[]} req @param {unknown} refused
 * @this {Distribution}
 */
export async function answerAfterVouch(from, req, refused) {
  const until = Date.now() + HOLD_MS;
  let e = refused;
  while (e instanceof NotGiven && Date.now() < until) {
    if (!(await vouchArrival(this, from, until - Date.now()))) break;
    try {
      return this.answerNow(from, req);
    } catch (again) {
      e = again;
    }
  }
  throw e;
}

/**
 * Resolves true when a vouch for `peer` is recorded, false after `ms` (or at once when
 * MAX_WAITING requests wait already, or MAX_WAITING_EACH of that peer's).
 * @param {Distribution} d @param {string} peer @param {number} ms
 * @returns {Promise<boolean>}
 */
function vouchArrival(d, peer, ms) {
  const st = state(d);
  if (st.waiting >= MAX_WAITING || (st.arrivals.get(peer)?.size ?? 0) >= MAX_WAITING_EACH) return Promise.resolve(false);
  st.waiting++;
  return new Promise((resolve) => {
    let set = st.arrivals.get(peer);
    if (set === undefined) st.arrivals.set(peer, (set = new Set()));
    const waits = set;
    const done = (/** @type {boolean} */ ok) => {
      clearTimeout(timer);
      waits.delete(done);
      if (waits.size === 0 && st.arrivals.get(peer) === waits) st.arrivals.delete(peer);
      st.waiting--;
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), ms);
    waits.add(done);
  });
}

/**
 * A VOUCH request from `from`: `[36, peer, browser?, serials(, names), envs]`. The
 * serials of this node's live processes and the names of its existing local spaces
 * among them are recorded as given to `peer` (restricted first if `browser` says it
 * joined from a browser and this node restricts tabs). The answer: how many were
 * recorded.
 * @param {string} from @param {any[]} req
 * @returns {number}
 * @this {Distribution}
 */
export function acceptVouch(from, req) {
  const [, peer, browser, serials] = req;
  const names = req.length === 6 ? req[4] : [];
  if ((req.length !== 5 && req.length !== 6) || typeof peer !== 'string' || peer.length === 0 || peer.length > 128 || typeof browser !== 'boolean' ||
      !Array.isArray(serials) || serials.length > WALK_LIMIT || !serials.every((n) => Number.isSafeInteger(n) && n >= 0) ||
      !Array.isArray(names) || names.length > WALK_LIMIT || !names.every((x) => typeof x === 'string' && x.length > 0 && x.length <= MAX_SPACE_NAME)) throw new Error('malformed VOUCH request');
  if (this.restricted.has(from)) {
    // a holder passes on what it holds, nothing else (passing-on.js); its word restricts no one
    const why = this.holderVouchRefusal(from, peer, serials, names);
    if (why !== null) {
      noteFailure(this, state(this), why);
      throw new Error(why);
    }
  } else if (browser && this.restrictsBrowsers && serials.length + names.length !== 0) this.restrictBrowserPeer(peer);
  const given = this.restricted.get(peer);
  if (given === undefined || peer === this.node.id) return 0; // not restricted here: it may reach them anyway
  const st = state(this), self = this.node.id, spaces = spaceTable(this.node).info;
  const live = serials.filter((n) => this.node.local(new Pid(self, n)) !== null);
  const held = names.filter((x) => spaces.has(x) && kindOf(this.node, x) === 'local');
  let mine = st.vouchedBy.get(from);
  if (mine === undefined) st.vouchedBy.set(from, (mine = new Set()));
  const entries = [...live.map((n) => `${peer} ${n}`), ...held.map((x) => `${peer}\n${x}`)].filter((e) => !mine.has(e));
  if (mine.size + entries.length > MAX_GIVEN) sweepStale(this, st, from, mine);
  if (mine.size + entries.length > MAX_GIVEN) {
    throw new Error(`VOUCH refused: ${from.slice(0, 12)} has vouched for ${mine.size} pids of live processes or spaces of this node, and ${entries.length} more would pass the ${MAX_GIVEN} one node may vouch for`);
  }
  for (const e of entries) mine.add(e);
  for (const n of live) recordGiven(given, n);
  if (held.length !== 0) {
    let s = this.givenSpaces.get(peer);
    if (s === undefined) this.givenSpaces.set(peer, (s = new Set()));
    for (const x of held) recordGiven(s, x);
  }
  const count = live.length + held.length;
  st.recorded += count;
  if (st.held.has(peer)) this.replayHeld(peer);
  const waits = st.arrivals.get(peer);
  if (waits !== undefined && count !== 0) for (const done of [...waits]) done(true);
  return count;
}

/** Record an item as given, most recently given last, at most MAX_GIVEN. @template T @param {Set<T>} set @param {T} item */
function recordGiven(set, item) {
  set.delete(item);
  set.add(item);
  if (set.size > MAX_GIVEN) set.delete(/** @type {T} */ (set.values().next().value));
}

/**
 * Forget the entries of `voucher` that no longer count: the process ended or the space
 * is gone, or the peer no longer holds the pid or space here (forgotten as the oldest given, or the peer itself
 * forgotten). At most once a second per voucher: a voucher at its bound cannot make
 * this node walk its entries on every request.
 * @param {Distribution} d @param {VouchState} st @param {string} voucher @param {Set<string>} mine
 */
function sweepStale(d, st, voucher, mine) {
  const now = Date.now();
  if (now - (st.sweptAt.get(voucher) ?? -Infinity) < 1000) return;
  st.sweptAt.set(voucher, now);
  const self = d.node.id, spaces = spaceTable(d.node).info;
  for (const e of mine) {
    const nl = e.indexOf('\n');
    if (nl !== -1) {
      const name = e.slice(nl + 1);
      if (!spaces.has(name) || !(d.givenSpaces.get(e.slice(0, nl))?.has(name) ?? false)) mine.delete(e);
      continue;
    }
    const at = e.lastIndexOf(' '), n = Number(e.slice(at + 1));
    if (d.node.local(new Pid(self, n)) === null || !(d.restricted.get(e.slice(0, at))?.has(n) ?? false)) mine.delete(e);
  }
}

/**
 * A frame from the restricted peer `from` that would be refused for a pid it was not
 * given, or that must wait behind such a frame: held for a vouch in flight, when there
 * is room. True when held.
 * @param {string} from @param {any[]} f @param {Uint8Array} bytes @param {string} target the key of the process it is for ("space NAME" for a Linda operation)
 * @param {boolean} [space] a Linda operation (SPACE_OP, or one carried by a SPACE_ACK)
 * @returns {boolean}
 * @this {Distribution}
 */
export function holdUngiven(from, f, bytes, target, space = false) {
  const st = state(this);
  let q = st.held.get(from);
  const size = bytes.length;
  if (q !== undefined && (q.length >= MAX_HELD || q.reduce((s, h) => s + h.bytes.length, 0) + size > HELD_BYTES)) return false;
  if (st.heldBytes + size > TOTAL_HELD_BYTES) return false;
  if (q === undefined) st.held.set(from, (q = []));
  q.push({ f, bytes, target, until: Date.now() + HOLD_MS, space });
  st.heldBytes += size;
  if (!st.timers.has(from)) st.timers.set(from, setTimeout(() => this.replayHeld(from), HOLD_MS));
  return true;
}

/**
 * A Linda frame from the restricted peer `from` (asked before the SPACE_OP handler): a
 * SPACE_OP, or a SPACE_ACK carrying one, on a local space of this node not given to it
 * (or behind such a held one, for the same space) is held for a vouch in flight. True
 * when held; false: handle it now (refused there if it must be).
 * @param {string} from @param {any[]} f @param {Uint8Array} bytes
 * @returns {boolean}
 * @this {Distribution}
 */
export function holdSpaceOp(from, f, bytes) {
  const op = spaceOpOf(f);
  if (op === null) return false;
  const target = `space ${op[3]}`;
  if (this.vouchState !== undefined && this.vouchState.held.size !== 0 && this.behindHeld(from, target)) return this.holdUngiven(from, f, bytes, target, true);
  return !spaceOpAllowed(this, from, op) && this.holdUngiven(from, f, bytes, target, true);
}

/** The SPACE_OP a frame is or carries (with a string name), or null. @param {any[]} f @returns {any[] | null} */
function spaceOpOf(f) {
  const op = f[0] === F_SPACE_OP ? f : f[0] === F_SPACE_ACK && f.length === 5 && Array.isArray(f[3]) && f[3][0] === F_SPACE_OP ? f[3] : null;
  return op !== null && typeof op[3] === 'string' ? op : null;
}

/**
 * Whether the restricted peer `from` may have the Linda operation `op` served (as the
 * SPACE_OP handler decides, without recording anything): a `make` of a space that does
 * not exist yet, or a space it may use (capabilities.js maySpace).
 * @param {Distribution} d @param {string} from @param {any[]} op
 */
function spaceOpAllowed(d, from, op) {
  return (op[2] === OP.make && !spaceTable(d.node).info.has(op[3])) || d.maySpace(from, op[3]);
}

/**
 * Whether a frame from `from` for the process `target` must wait behind a held one
 * (the order between two processes). Asked only for restricted peers.
 * @param {string} from @param {string} target
 * @this {Distribution}
 */
export function behindHeld(from, target) {
  const q = this.vouchState?.held.get(from);
  return q !== undefined && q.some((h) => h.target === target);
}

/**
 * Take again, in order, the frames held for `peer`: those now acceptable are handled,
 * those whose time is up are refused as they would have been, the others wait on (and a
 * later one for the same process waits behind them).
 * @param {string} peer
 * @this {Distribution}
 */
export function replayHeld(peer) {
  const st = state(this);
  const q = st.held.get(peer);
  const timer = st.timers.get(peer);
  if (timer !== undefined) clearTimeout(timer);
  st.timers.delete(peer);
  if (q === undefined) return;
  st.held.delete(peer);
  const now = Date.now();
  /** @type {Held[]} */
  const waiting = [];
  const blocked = new Set();
  for (const h of q) {
    st.heldBytes -= h.bytes.length;
    const why = blocked.has(h.target) ? '' : h.space ? (spaceOpAllowed(this, peer, /** @type {any[]} */ (spaceOpOf(h.f))) ? null : 'not given') : this.whyNotTaken(peer, h.f);
    if (why === '') waiting.push(h);
    else if (h.space && (why === null || now >= h.until)) this.onSpaceFrame(peer, h.f); // served, or refused there with its answer
    else if (why === null) this.handleFrame(peer, h.f, h.bytes);
    else if (now >= h.until) this.refuseUngiven(peer, why);
    else {
      waiting.push(h);
      blocked.add(h.target);
    }
  }
  if (waiting.length === 0) return;
  for (const h of waiting) st.heldBytes += h.bytes.length;
  st.held.set(peer, waiting);
  st.timers.set(peer, setTimeout(() => this.replayHeld(peer), Math.max(0, waiting[0].until - now)));
}
