// @ts-check
/**
 * Vouching for the pids of a third node that this node gives a restricted peer
 * (docs/security.md, "A pid of a third node that a daemon hands a tab").
 *
 * What a restricted peer T may reach of a node B is what B gave it (capabilities.js).
 * When this node A writes to T a frame, request or answer holding pids of processes of
 * another node B (a service's pid A passes on, a reply-to pid), A tells B with request
 * VOUCH, `[36, T, browser?, serials]`: "I gave these pids of yours to T" (`vouchFor`,
 * called by capabilities.js `give` before the frame to T is written, so the request
 * leaves on the link to B first). B believes a daemon peer about it, as it believes its
 * browser marks and AS owners, and records the serials as given to T (`acceptVouch`).
 *
 * The order problem: T's first frame to such a pid may reach B over a direct link to B
 * before A's request does (a frame routed through A follows the request on the link A–B,
 * and the request is answered in the task it arrives in). So B does not refuse at once a
 * frame from T that it would refuse for an ungiven pid: it holds it for at most HOLD_MS,
 * and takes it as soon as a vouch makes it acceptable (`holdUngiven`, `replayHeld`). A
 * later frame from T for a process that has a held frame waits behind it (the order of
 * messages between two processes is kept). Only frames that would be refused are held:
 * a frame B takes costs nothing more.
 *
 * Invariants:
 *  - A tells B each pid once per T (`told`, at most MAX_GIVEN per T and B, the oldest
 *    forgotten first), in one request per frame and third node, and only while T is
 *    restricted here; pids of T's own node, of restricted nodes and of this node are
 *    never vouched for;
 *  - B refuses VOUCH from a restricted peer; it records only serials of its live
 *    processes; what one vouching node has made it record is at most MAX_GIVEN
 *    (T, serial) entries (`vouchedBy`: when full, entries of processes that ended or
 *    that T no longer holds are swept, once a second at most), and a request beyond is
 *    refused whole, with the reason, logged;
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
/** @typedef {{f: any[], bytes: Uint8Array, target: string, until: number}} Held */
/**
 * @typedef {object} VouchState
 * @property {Map<string, Map<string, Set<number>>>} told restricted peer → third node → serials told it
 * @property {Map<string, Set<string>>} vouchedBy vouching node → "peer serial" entries it had this node record
 * @property {Map<string, number>} sweptAt vouching node → when its entries were last swept (ms)
 * @property {Map<string, Held[]>} held restricted peer → its frames held for a vouch, in arrival order
 * @property {Map<string, ReturnType<typeof setTimeout>>} timers restricted peer → the timer of its oldest held frame
 * @property {Map<string, Set<(ok: boolean) => void>>} arrivals restricted peer → its requests waiting for a vouch
 * @property {number} waiting requests waiting for a vouch (all peers)
 * @property {number} heldBytes bytes held for all peers
 * @property {{since: number, count: number}} failures the log window of vouches that failed
 * @property {number} sent VOUCH requests sent
 * @property {number} recorded pids recorded on others' word
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
 * Tell each third node which of its pids this node just gave the restricted peer `to`
 * (collected by capabilities.js `give`: node → serials), those not told before. One
 * VOUCH request per node; a failure is logged (once a second at most).
 * @param {string} to @param {Map<string, number[]>} thirds
 * @this {Distribution}
 */
export function vouchFor(to, thirds) {
  const st = state(this);
  let byNode = st.told.get(to);
  if (byNode === undefined) st.told.set(to, (byNode = new Map()));
  const browser = this.browserPeers.has(to);
  for (const [node, serials] of thirds) {
    if (node === to || this.restricted.has(node)) continue; // a peer's own pids, or a node that would not believe this one
    let told = byNode.get(node);
    if (told === undefined) byNode.set(node, (told = new Set()));
    /** @type {number[]} */
    const fresh = [];
    for (const n of serials) {
      if (told.has(n)) continue;
      remember(told, n);
      fresh.push(n);
    }
    if (fresh.length === 0) continue;
    st.sent++;
    const failed = (/** @type {unknown} */ e) => {
      for (const n of fresh) /** @type {Set<number>} */ (told).delete(n); // told again with the next frame that names it
      noteFailure(this, st, `vouching to ${node.slice(0, 12)} for ${fresh.length} pid(s) given to ${to.slice(0, 12)} failed: ${e instanceof Error ? e.message : String(e)}`);
    };
    try {
      this.call(node, [R_VOUCH, to, browser, fresh]).catch(failed); // sent now: before the frame to `to`
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
 * A VOUCH request from `from`: `[36, peer, browser?, serials, envs]`. The serials of
 * this node's live processes among them are recorded as given to `peer` (restricted
 * first if `browser` says it joined from a browser and this node restricts tabs). The
 * answer: how many were recorded.
 * @param {string} from @param {any[]} req
 * @returns {number}
 * @this {Distribution}
 */
export function acceptVouch(from, req) {
  if (this.restricted.has(from)) throw new Error(`VOUCH refused: ${from.slice(0, 12)} is a restricted peer and vouches for no one`);
  const [, peer, browser, serials] = req;
  if (req.length !== 5 || typeof peer !== 'string' || peer.length === 0 || peer.length > 128 || typeof browser !== 'boolean' ||
      !Array.isArray(serials) || serials.length > WALK_LIMIT || !serials.every((n) => Number.isSafeInteger(n) && n >= 0)) throw new Error('malformed VOUCH request');
  if (browser && this.restrictsBrowsers && serials.length !== 0) this.restrictBrowserPeer(peer);
  const given = this.restricted.get(peer);
  if (given === undefined || peer === this.node.id) return 0; // not restricted here: it may reach them anyway
  const st = state(this), self = this.node.id;
  const live = serials.filter((n) => this.node.local(new Pid(self, n)) !== null);
  let mine = st.vouchedBy.get(from);
  if (mine === undefined) st.vouchedBy.set(from, (mine = new Set()));
  const entries = live.map((n) => `${peer} ${n}`).filter((e) => !mine.has(e));
  if (mine.size + entries.length > MAX_GIVEN) sweepStale(this, st, from, mine);
  if (mine.size + entries.length > MAX_GIVEN) {
    throw new Error(`VOUCH refused: ${from.slice(0, 12)} has vouched for ${mine.size} pids of live processes of this node, and ${entries.length} more would pass the ${MAX_GIVEN} one node may vouch for`);
  }
  for (const e of entries) mine.add(e);
  for (const n of live) {
    given.delete(n); // most recently given last
    given.add(n);
    if (given.size > MAX_GIVEN) given.delete(/** @type {number} */ (given.values().next().value));
  }
  st.recorded += live.length;
  if (st.held.has(peer)) this.replayHeld(peer);
  const waits = st.arrivals.get(peer);
  if (waits !== undefined && live.length !== 0) for (const done of [...waits]) done(true);
  return live.length;
}

/**
 * Forget the entries of `voucher` that no longer count: the process ended, or the peer
 * no longer holds the pid here (forgotten as the oldest given, or the peer itself
 * forgotten). At most once a second per voucher: a voucher at its bound cannot make
 * this node walk its entries on every request.
 * @param {Distribution} d @param {VouchState} st @param {string} voucher @param {Set<string>} mine
 */
function sweepStale(d, st, voucher, mine) {
  const now = Date.now();
  if (now - (st.sweptAt.get(voucher) ?? -Infinity) < 1000) return;
  st.sweptAt.set(voucher, now);
  const self = d.node.id;
  for (const e of mine) {
    const at = e.lastIndexOf(' '), n = Number(e.slice(at + 1));
    if (d.node.local(new Pid(self, n)) === null || !(d.restricted.get(e.slice(0, at))?.has(n) ?? false)) mine.delete(e);
  }
}

/**
 * A frame from the restricted peer `from` that would be refused for a pid it was not
 * given, or that must wait behind such a frame: held for a vouch in flight, when there
 * is room. True when held.
 * @param {string} from @param {any[]} f @param {Uint8Array} bytes @param {string} target the key of the process it is for
 * @returns {boolean}
 * @this {Distribution}
 */
export function holdUngiven(from, f, bytes, target) {
  const st = state(this);
  let q = st.held.get(from);
  const size = bytes.length;
  if (q !== undefined && (q.length >= MAX_HELD || q.reduce((s, h) => s + h.bytes.length, 0) + size > HELD_BYTES)) return false;
  if (st.heldBytes + size > TOTAL_HELD_BYTES) return false;
  if (q === undefined) st.held.set(from, (q = []));
  q.push({ f, bytes, target, until: Date.now() + HOLD_MS });
  st.heldBytes += size;
  if (!st.timers.has(from)) st.timers.set(from, setTimeout(() => this.replayHeld(from), HOLD_MS));
  return true;
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
    const why = blocked.has(h.target) ? '' : this.whyNotTaken(peer, h.f);
    if (why === '') waiting.push(h);
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
