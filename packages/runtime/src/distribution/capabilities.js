// @ts-check
/**
 * Capabilities of restricted peers (docs/security.md, "Trust model by role"). A peer is
 * restricted when named so (`restrictedPeers`: the daemon's `--restricted-peer`) or when
 * it joined from a browser (`restrictBrowserPeers`: every daemon unless `--trust-tabs`).
 * What it may reach of this node is what this node gave it:
 *  - a process: its pid was given — this node wrote it in a frame, request or answer
 *    to that peer — or the peer spawned it (directly, or a descendant: `proc.peer`);
 *    only such processes may it send to, signal, link to, unlink from or kill;
 *  - a Linda space of this node: this node wrote a reference to it (a SpaceRef) to that
 *    peer, or the peer (or a process it spawned) made it (`maySpace`, `mayMakeSpace`:
 *    asked by the SPACE_OP handler, linda/remote-spaces.js, and by the local Linda
 *    operations of a process with `proc.peer`, prims-linda.js);
 *  - a program environment's definitions (ENV): this node sent it a procedure of that
 *    environment (its id was in the frame's environment list);
 *  - a published service (SERVICE, and `remote-service` of this node by a process the
 *    peer spawned): its pid is one the peer may reach; such a process may not publish
 *    over a service it could not reach (`mayPublish`);
 *  - a process that migrates in (MIGRATE): it was born on that peer, or this node's
 *    forwarding or location entry for it names that peer (this node sent it there, or
 *    was told by the node it sent it to that it went there).
 * And what it sends may name only such things: a frame or request (a message, a
 * signal's payload, a spawned thunk, a migrating process's state and links) holding a
 * pid or space of this node that the peer may not reach is refused whole
 * (`checkMentions`), so a peer cannot forge a capability by writing it into a value for
 * one of this node's processes to use.
 *
 * No confused deputy: a process of a restricted peer (`proc.peer`) that acts on another
 * node — `!`, a signal, a link, a kill, a Linda operation on a space held there, a
 * remote spawn, a migration, a service lookup — does not act as this node there. Its
 * frame or request goes wrapped in AS, naming the peer (`actFrame`, `actRequest`), and
 * the receiver checks it as if the peer had sent it (`onActedFrame`, `answerActed`): it
 * reaches there only what that node gave the peer, and what it starts or moves in there
 * is the peer's. (Checking here, before sending, could not work: only the node that owns
 * a pid or a space knows whether it gave it to the peer.) The receiver restricts the peer
 * by its own rules; the wrapper's `browser` flag says the peer joined from a browser,
 * so a daemon that restricts tabs restricts it.
 *
 * Invariants:
 *  - nothing here runs for an unrestricted peer: the callers test `restricted.size`
 *    first, so the daemon-to-daemon path costs one comparison per frame;
 *  - what a restricted peer was given is a Set of serials per peer (and "node/serial" keys
 *    of processes that migrated here, given while they were here; and of space names,
 *    and of environment ids), each at most MAX_GIVEN (the oldest forgotten first), kept
 *    while the node runs (a tab that reconnects keeps its pids);
 *  - a value going to a restricted peer is searched for pids to at most WALK_LIMIT
 *    values (pids further in are not recorded as given); a value coming from one is
 *    searched to at most CHECK_LIMIT values, and refused beyond (it cannot be checked);
 *    a search follows a closure's free values and a frame's saved values, not code;
 *  - a refused frame costs one log line and one ERROR frame a second at most, with the
 *    count refused since then; a refused request is answered with the reason;
 *  - a frame or request acted for a peer is wrapped only when its sender is a process
 *    whose owner is restricted here and it goes to another node than the owner's; AS is
 *    not believed from a restricted peer (its inner frame is handled as its own: passing-on.js).
 *
 * These functions are Distribution's methods (`this` is the Distribution).
 */
import { Closure, Frame } from '@termite/scheme';

import { R } from '@termite/scheme/internal';
import { Pid, SpaceRef } from '../termite-values.js';
import {
  FRAMES, F_SEND, F_SIGNAL, F_LINK, F_UNLINK, F_KILL, F_EXITED, F_AS, R_SPAWN, R_MIGRATE, R_ENV, R_SERVICE, R_AS, key,
} from './frame-vocabulary.js';
import { kindOf, spaceTable } from '../linda/space-table.js';
import { F_SPACE_OP, F_SPACE_REPLY, S_ERROR, OP } from '../linda/remote-spaces.js';

/** Pids (and spaces, and environments) one restricted peer keeps from this node (the oldest forgotten first). */
export const MAX_GIVEN = 65536;
/** Values searched for pids in one frame to a restricted peer. */
export const WALK_LIMIT = 100_000;
/** Values searched for pids and spaces in one frame or request from a restricted peer (a bigger one is refused). */
export const CHECK_LIMIT = 4_000_000;
/** A refusal for a pid not given, which a vouch in flight may lift (vouching.js waits for one). */
export class NotGiven extends Error {}
/** The end of the reason for a value too big to check. */
const TOO_MANY = 'too many to check';
/** Browser peers a node remembers as restricted (with the pids given to them) once they left. */
export const MAX_BROWSER_PEERS = 4096;

/** @typedef {import('../distribution.js').Distribution} Distribution */

/**
 * Visit every Pid and SpaceRef `value` holds, searching at most `limit` values (a
 * closure's free values, a continuation frame's saved values; never code). False when
 * the limit stopped the search.
 * @param {unknown} value @param {number} limit @param {(x: Pid | SpaceRef) => void} visit
 */
export function eachReference(value, limit, visit) {
  /** @type {unknown[]} */
  const stack = [value];
  const seen = new Set();
  for (let n = 0; stack.length > 0; n++) {
    if (n >= limit) return false;
    const x = stack.pop();
    if (x === null || typeof x !== 'object' || ArrayBuffer.isView(x) || seen.has(x)) continue;
    seen.add(x);
    if (x instanceof Pid || x instanceof SpaceRef) visit(x);
    else if (Array.isArray(x)) for (let i = 0; i < x.length; i++) stack.push(x[i]);
    else if (x instanceof Closure) stack.push(x.fv);
    else if (x instanceof Frame) stack.push(x.s, x.next);
    else if (x instanceof Map || x instanceof Set) for (const v of x.values()) stack.push(v);
    else for (const k in x) stack.push(/** @type {any} */ (x)[k]);
  }
  return true;
}

/** Add `item` to a bounded, oldest-first set. @template T @param {Set<T>} set @param {T} item */
function remember(set, item) {
  set.delete(item); // most recently given last
  set.add(item);
  if (set.size > MAX_GIVEN) set.delete(/** @type {T} */ (set.values().next().value));
}

/** The spaces (by name) given to `peer`. @param {Distribution} d @param {string} peer */
function spacesOf(d, peer) {
  let s = d.givenSpaces.get(peer);
  if (s === undefined) d.givenSpaces.set(peer, (s = new Set()));
  return s;
}

/**
 * A peer joined from a browser (option `restrictBrowserPeers`): it is restricted from
 * now on, for as long as the node runs — it keeps the pids it was given when it comes
 * back. At most MAX_BROWSER_PEERS such peers are remembered: beyond, the oldest that is
 * not connected now is forgotten (its pids with it; it is restricted again, with none
 * given, when it joins from a browser again).
 * @param {string} id
 * @this {Distribution}
 */
export function restrictBrowserPeer(id) {
  if (this.restricted.has(id)) return;
  this.restricted.set(id, new Set());
  this.browserPeers.add(id);
  if (this.browserPeers.size <= MAX_BROWSER_PEERS) return;
  for (const old of this.browserPeers) {
    if (old === id || this.mesh.isReachable(old)) continue;
    this.browserPeers.delete(old);
    this.restricted.delete(old);
    this.givenSpaces.delete(old);
    this.givenEnvs.delete(old);
    this.forgetVouches(old);
    return;
  }
}

/**
 * Record the pids of this node's processes and its spaces that `value` holds as given
 * to `to`, when `to` is a restricted peer; and vouch to each third node for the pids of
 * its processes and the names of its spaces `value` holds (vouching.js; the third node
 * records only those of its local spaces), those not told it before. `own` false: only the vouching (a value given to a process of `to`
 * that lives on this node: `giveToProcessOf`).
 * @param {string} to @param {unknown} value @param {boolean} [own]
 * @this {Distribution}
 */
export function give(to, value, own = true) {
  const given = this.restricted.get(to);
  if (given === undefined) return;
  const self = this.node.id, guests = this.node.guests;
  /** @type {Map<string, (number | string)[]> | null} pids (serials) and local spaces (names) of third nodes not yet vouched for to them */
  let thirds = null;
  const told = this.vouchState?.told.get(to);
  eachReference(value, WALK_LIMIT, (x) => {
    if (x.node !== self) {
      /** @type {number | string} */
      let item;
      if (x instanceof Pid) {
        // a process that migrated here is given as this node's own are (by node/serial): a
        // messenger that asks a tab something (`on`) is answered here, where it lives
        if (guests.size !== 0 && guests.has(key(x.node, x.n))) {
          if (own) remember(given, key(x.node, x.n));
          return;
        }
        item = x.n;
      } else if (x.kind !== 'distributed') item = x.name; // the holder decides by its own kind (`remote-space` names any space 'central'): it records only its local ones
      else return;
      if (x.node === to || (told?.get(x.node)?.has(item) ?? false)) return;
      thirds ??= new Map();
      const list = thirds.get(x.node);
      if (list === undefined) thirds.set(x.node, [item]);
      else list.push(item);
      return;
    }
    if (!own) return;
    if (x instanceof Pid) remember(given, x.n);
    else remember(spacesOf(this, to), x.name);
  });
  if (thirds !== null) this.vouchFor(to, thirds);
}

/**
 * A message delivered on this node to a process of the restricted peer `peer`
 * (`proc.peer`: one it spawned here, or a descendant) by `sender`: a process of this
 * node or of an unrestricted peer (null, or that peer's id), or a frame from such a
 * node. That process acts on other nodes as `peer` (AS, below), so the pids and spaces
 * of third nodes the message holds are vouched for to those nodes as given to `peer`, as
 * if this node had written the message to the peer itself. Nothing is vouched for what
 * a restricted peer (or a process of one) writes: what it may reach elsewhere it must
 * have been given, not have a deputy vouch for. Called by the local `!`, and for a SEND
 * frame from another node (one-way-frames.js).
 * @param {string} peer @param {unknown} value @param {string | null} sender
 * @this {Distribution}
 */
export function giveToProcessOf(peer, value, sender) {
  if (sender !== peer && this.restricted.has(peer) && (sender === null || !this.restricted.has(sender))) this.give(peer, value, false);
}

/**
 * Record the program environments a frame just encoded for a restricted peer lists
 * (its last item, filled by encode): the peer may then fetch their definitions (ENV).
 * @param {string} to @param {any[]} frame
 * @this {Distribution}
 */
export function giveEnvs(to, frame) {
  const envs = frame[frame.length - 1];
  if (!this.restricted.has(to) || !Array.isArray(envs) || envs.length === 0) return;
  let s = this.givenEnvs.get(to);
  if (s === undefined) this.givenEnvs.set(to, (s = new Set()));
  for (const e of envs) remember(s, String(e[0]));
}

/**
 * Whether `from` may reach the local process of `pid` (`proc`, null when it is not
 * here): it is not restricted, or it was given the pid, or it spawned the process.
 * @param {string} from @param {Pid} pid @param {any} proc
 * @this {Distribution}
 */
export function mayReach(from, pid, proc) {
  const given = this.restricted.get(from);
  // a process that lived on the peer (it migrated here from there, or through there)
  // is one whose pid the peer held: it forwards the process's messages here
  return given === undefined || given.has(pid.node === this.node.id ? pid.n : key(pid.node, pid.n)) || (proc !== null && (proc.peer === from || (proc.visited?.includes(from) ?? false)));
}

/**
 * A process of this node leaves it while some peer is restricted: the pids of this
 * node's processes it carries (in its continuation, mailbox and links) are recorded,
 * so that it may bring them back through a restricted peer (checkRequest). Forgotten
 * when it comes back or ends. A process a restricted peer owns (`proc.peer`) stays its
 * wherever it goes: its pid counts as given to that peer (who reached it here).
 * @param {Pid} pid @param {unknown} state
 * @this {Distribution}
 */
export function noteCarried(pid, state) {
  const self = this.node.id;
  const owner = this.node.local(pid)?.peer, given = typeof owner === 'string' ? this.restricted.get(owner) : undefined;
  if (given !== undefined) remember(given, pid.n);
  /** @type {Set<number>} */
  const carried = new Set();
  eachReference(state, WALK_LIMIT, (x) => {
    if (x instanceof Pid && x.node === self) carried.add(x.n);
  });
  this.carried.set(key(pid.node, pid.n), carried);
}

/**
 * Whether `from` may act (a frame of this type) on the local process `proc`. When not,
 * the frame is refused (refuseUngiven).
 * @param {string} from @param {number} type @param {Pid} pid @param {any} proc
 * @this {Distribution}
 */
export function mayAct(from, type, pid, proc) {
  if (this.mayReach(from, pid, proc)) return true;
  this.refuseUngiven(from, `${FRAMES[type]?.[0] ?? type} to process ${pid.n} refused: ${from.slice(0, 12)} is a restricted peer and was not given that pid`);
  return false;
}

/**
 * Whether the restricted peer `from` may have this frame (of `type`, for the local
 * process `proc`) handled: it may act on the process (mayAct) and the frame's value (a
 * message, a signal's payload, a link's other end) names nothing of this node it may
 * not reach. When not, the frame is refused (refuseUngiven).
 * A frame refused for a pid not given (its encoding `bytes` at hand) is held a bounded
 * time first, for a vouch in flight (vouching.js).
 * @param {string} from @param {number} type @param {Pid} pid @param {any} proc @param {any[]} f the frame
 * @param {Uint8Array | null} [bytes] its encoding, to hold it
 * @this {Distribution}
 */
export function mayTake(from, type, pid, proc, f, bytes = null) {
  // a frame for a process with a frame held for a vouch waits behind it (vouching.js)
  if (bytes !== null && this.vouchState !== undefined && this.vouchState.held.size !== 0 &&
      this.behindHeld(from, key(pid.node, pid.n)) && this.holdUngiven(from, f, bytes, key(pid.node, pid.n))) return false;
  const why = refusalOf(this, from, f, pid, proc);
  if (why === null) return true;
  // refused for a pid not given: a node that gave it may be vouching for it (vouching.js)
  if (bytes !== null && !why.endsWith(TOO_MANY) && this.holdUngiven(from, f, bytes, key(pid.node, pid.n))) return false;
  this.refuseUngiven(from, why);
  return false;
}

/**
 * Why `from` may not have the frame `f` for the local process `proc` (of `pid`)
 * handled, or null. @param {Distribution} d @param {string} from @param {any[]} f @param {Pid} pid @param {any} proc
 * @returns {string | null}
 */
function refusalOf(d, from, f, pid, proc) {
  const what = `${FRAMES[f[0]]?.[0] ?? f[0]} to process ${pid.n}`;
  if (!d.mayReach(from, pid, proc)) return `${what} refused: ${from.slice(0, 12)} is a restricted peer and was not given that pid`;
  if (f.length < 5) return null; // KILL: nothing more in it
  return d.checkMentions(from, f[3], what);
}

/**
 * Why the restricted peer `from` may not have the frame `f` (for a process of this
 * node) handled, or null: it may not act on the process (mayReach), or the frame's
 * value names something of this node it may not reach. Null for a process not here.
 * @param {string} from @param {any[]} f
 * @returns {string | null}
 * @this {Distribution}
 */
export function whyNotTaken(from, f) {
  const pid = new Pid(f[1], f[2]), proc = this.node.local(pid);
  return proc === null ? null : refusalOf(this, from, f, pid, proc);
}

/**
 * Whether `from` may use this node's Linda space `name` (whatever serves Linda
 * operations to other nodes asks this before each): it is not restricted, or the space
 * is central, or this node wrote a reference to that space (a SpaceRef) in a frame,
 * request or answer to it. Processes a restricted peer spawned here count as that peer
 * (`proc.peer`). A central space is shared with the whole mesh by the choice of whoever
 * made it (`(make-space NAME 'central)`): a tab that is handed a reference to it by any
 * node — a program elsewhere that spawns work on tabs — may use it, as a worker must;
 * local spaces, the default space included, stay reachable only when given.
 * @param {string} from @param {string} name
 * @this {Distribution}
 */
export function maySpace(from, name) {
  return !this.restricted.has(from) || (this.givenSpaces.get(from)?.has(name) ?? false) || kindOf(this.node, name) !== 'local'; // central and distributed: shared
}

/**
 * Whether `from` may make (or name, through `make-space`) this node's space `name`: it
 * is not restricted, or the space was given to it, or no such space exists yet — then
 * the space is new, made by it, and counts as given to it from now on. (An existing
 * space it was not given stays out of reach: naming it is no way in.)
 * @param {string} from @param {string} name @param {boolean} exists whether the node has a space of that name
 * @this {Distribution}
 */
export function mayMakeSpace(from, name, exists) {
  if (!this.restricted.has(from)) return true;
  if (this.givenSpaces.get(from)?.has(name) ?? false) return true;
  if (exists && kindOf(this.node, name) !== 'local') return true; // central and distributed: shared with the mesh
  if (exists) return false;
  remember(spacesOf(this, from), name);
  return true;
}

/**
 * Why `value`, from the restricted peer `from`, may not be taken: it names a process or
 * a space of this node that `from` may not reach, or is too big to search. Null when
 * it may (or `from` is not restricted).
 * @param {string} from @param {unknown} value @param {string} what what the value is, for the reason
 * @param {Set<number> | null} [also] serials of this node's processes it may name besides
 * @returns {string | null}
 * @this {Distribution}
 */
export function checkMentions(from, value, what, also = null) {
  if (!this.restricted.has(from)) return null;
  const self = this.node.id;
  /** @type {string | null} */
  let why = null;
  const whole = eachReference(value, CHECK_LIMIT, (x) => {
    if (why !== null || x.node !== self) return;
    if (x instanceof Pid) {
      if (!this.mayReach(from, x, this.node.local(x)) && !(also?.has(x.n) ?? false)) why = `process ${x.n}, whose pid it was not given`;
    } else if (!this.maySpace(from, x.name)) why = `space ${x.name}, which it was not given`;
  });
  if (!whole) why = `more than ${CHECK_LIMIT} values, ${TOO_MANY}`;
  return why === null ? null : `${what} refused: ${from.slice(0, 12)} is a restricted peer and it names ${why}`;
}

/**
 * Throw when the restricted peer `from` may not make request `req` (remote-requests.js
 * asks before answering): a SPAWN or MIGRATE naming what it may not reach, a MIGRATE of
 * a process that is not its to move in, an ENV of an environment it was given nothing
 * from, a SERVICE whose process it may not reach.
 * @param {string} from @param {any[]} req @param {number} [caller] a serial of this node the SPAWN may name besides (its caller's: answerActed)
 * @this {Distribution}
 */
export function checkRequest(from, req, caller = -1) {
  if (!this.restricted.has(from)) return;
  const who = from.slice(0, 12);
  switch (req[0]) {
    case R_SPAWN: {
      const why = this.checkMentions(from, [req[1], req[2], req[3]], 'SPAWN', caller === -1 ? null : new Set([caller]));
      if (why !== null) throw why.endsWith(TOO_MANY) ? new Error(why) : new NotGiven(why);
      return;
    }
    case R_MIGRATE: {
      const pid = Array.isArray(req[1]) ? req[1][0] : null;
      if (!(pid instanceof Pid)) return; // acceptMigration says what is wrong
      const k = key(pid.node, pid.n);
      if (pid.node !== from && this.forwarding.get(k) !== from && this.location.get(k) !== from) {
        throw new Error(`MIGRATE of process ${pid.n} of ${pid.node.slice(0, 12)} refused: ${who} is a restricted peer, the process was not born there, and this node did not send it there nor hear that it went there`);
      }
      // it may bring back the pids it left with, and its own
      const also = new Set(this.carried.get(k));
      if (pid.node === this.node.id) also.add(pid.n);
      const why = this.checkMentions(from, req[1], `MIGRATE of process ${pid.n}`, also);
      if (why !== null) throw why.endsWith(TOO_MANY) ? new Error(why) : new NotGiven(why);
      return;
    }
    case R_ENV:
      // a library's definitions are the same on every node: no capability
      if (!String(req[1]).startsWith('lib:') && !(this.givenEnvs.get(from)?.has(String(req[1])) ?? false)) throw new Error(`ENV ${String(req[1]).slice(0, 100)} refused: ${who} is a restricted peer and this node sent it nothing from that environment`);
      return;
    case R_SERVICE: {
      const pid = this.services.get(String(req[1]));
      if (pid !== undefined && !this.mayReach(from, pid, this.node.local(pid))) throw new NotGiven(`SERVICE ${String(req[1]).slice(0, 100)} refused: ${who} is a restricted peer and was not given that service's pid`);
      return;
    }
  }
}

/**
 * Whether a process that descends from `peer`'s spawn may publish a service under
 * `name` here: `peer` is not restricted, or no service has that name, or the peer may
 * reach the process that has it (it may not take over another's name).
 * @param {string} peer @param {string} name
 * @this {Distribution}
 */
export function mayPublish(peer, name) {
  if (!this.restricted.has(peer)) return true;
  const pid = this.services.get(name);
  return pid === undefined || this.mayReach(peer, pid, this.node.local(pid));
}

/**
 * Refuse a frame of a restricted peer: an ERROR frame with `why` and a log line, at
 * most once a second (with the count refused since then).
 * @param {string} from @param {string} why
 * @this {Distribution}
 */
export function refuseUngiven(from, why) {
  this.refuseOncePerSecond(this.capabilityRefusals, 'frames from restricted peers refused', from, why);
}

// ------------------------------------------------------------ acting for a peer

/** One-way frames by which a process acts on another node (wrapped in AS for a restricted peer's). */
const ACTS = new Set([F_SEND, F_SIGNAL, F_LINK, F_UNLINK, F_KILL, F_EXITED, F_SPACE_OP]);
/** Requests by which it acts (CODE, ENV and STATS are this node's own needs, not acts). */
const ACTED_REQUESTS = new Set([R_SPAWN, R_MIGRATE, R_SERVICE]);

/**
 * The restricted peer whose process `proc` (default: the running one) is, or null.
 * @param {any} [proc]
 * @returns {string | null}
 * @this {Distribution}
 */
export function actingFor(proc = null) {
  const p = proc ?? /** @type {any} */ (R.thread)?.owner;
  const peer = p?.peer;
  return typeof peer === 'string' && this.restricted.has(peer) ? peer : null;
}

/**
 * A one-way frame about to go to `to`: wrapped in AS when the running process acts for
 * a restricted peer and `to` is another node than that peer's. Called only while some
 * peer is restricted.
 * @param {string} to @param {any[]} frame
 * @this {Distribution}
 */
export function actFrame(to, frame) {
  if (!ACTS.has(frame[0])) return frame;
  const owner = this.actingFor(null);
  return owner === null || owner === to ? frame : [F_AS, owner, this.browserPeers.has(owner), frame];
}

/**
 * A request about to go to `to`, made for the restricted peer `owner` (null: for this
 * node): wrapped in AS unless it goes to the owner's node.
 * @param {string} to @param {any[]} req @param {string | null} owner
 * @this {Distribution}
 */
export function actRequest(to, req, owner) {
  return owner === null || owner === to || !ACTED_REQUESTS.has(req[0]) ? req : [R_AS, owner, this.browserPeers.has(owner), req];
}

/**
 * Unwrap an AS (frame or request) from `from`: its inner frame, with the environment
 * list of the AS appended (the shape every handler reads), and whether its owner is
 * restricted here. A daemon that restricts tabs (`restrictBrowserPeers`) restricts an
 * owner the sender says joined from a browser. Throws when malformed or when `from` is
 * itself restricted (a peer acts for no other: it could name one to have it restricted).
 * @param {string} from @param {any[]} f @param {Set<number>} types the inner types allowed
 * @returns {{owner: string, inner: any[], restricted: boolean}}
 * @this {Distribution}
 */
function unwrapActed(from, f, types) {
  const [type, owner, browser, inner] = f;
  const what = type === F_AS ? 'AS frame' : 'AS request';
  if (f.length !== 5 || typeof owner !== 'string' || owner.length === 0 || owner.length > 128 || typeof browser !== 'boolean' ||
      !Array.isArray(inner) || !types.has(inner[0])) throw new Error(`malformed ${what}`);
  if (this.restricted.has(from)) throw new Error(`${what} refused: ${from.slice(0, 12)} is a restricted peer and acts for no other node`);
  inner.push(f[4]);
  if (owner === this.node.id) return { owner, inner, restricted: false };
  if (browser && this.restrictsBrowsers) this.restrictBrowserPeer(owner);
  return { owner, inner, restricted: this.restricted.has(owner) };
}

/**
 * An AS frame from `from`: its inner frame is handled as from `from` (answers, MOVED,
 * forwarding go to it) once it passed the checks of a frame from its owner, when the
 * owner is restricted here. A refusal is an ERROR frame to `from` and a log line (once a
 * second); a refused SPACE_OP that waits for an answer is answered with the reason.
 * @param {string} from @param {any[]} f @param {Uint8Array} bytes
 * @this {Distribution}
 */
export function onActedFrame(from, f, bytes) {
  if (this.restricted.has(from)) return void this.relayedByHolder(from, f, bytes); // a tab relaying: its own rights (passing-on.js)
  let acted;
  try {
    acted = unwrapActed.call(this, from, f, ACTS);
  } catch (e) {
    this.refuse(from, e);
    return;
  }
  const { owner, inner } = acted;
  const why = acted.restricted ? actedFrameRefusal(this, owner, inner) : null;
  if (why === null) {
    this.actedOwner = owner; // what it delivers to a restricted peer's process was written by `owner` (giveToProcessOf)
    try {
      this.handleFrame(from, inner, bytes);
    } finally {
      this.actedOwner = null;
    }
    return;
  }
  if (inner[0] === F_SPACE_OP && Number.isSafeInteger(inner[1]) && inner[1] > 0) this.emit(from, [F_SPACE_REPLY, inner[1], S_ERROR, why]);
  this.refuseUngiven(from, why);
}

/**
 * Why the restricted peer `owner` may not have `inner` (a one-way frame one of its
 * processes sent through another node) handled here, or null. A frame for a process
 * not here is not checked here: it is forwarded, still wrapped, or dropped.
 * @param {Distribution} d @param {string} owner @param {any[]} inner
 * @returns {string | null}
 */
function actedFrameRefusal(d, owner, inner) {
  const who = owner.slice(0, 12);
  if (inner[0] === F_SPACE_OP) {
    const [, , op, name] = inner;
    if (typeof name !== 'string') return null; // onSpaceFrame says what is wrong
    const ok = op === OP.make ? d.mayMakeSpace(owner, name, spaceTable(d.node).info.has(name)) : d.maySpace(owner, name);
    const opName = Object.keys(OP).find((k) => /** @type {any} */ (OP)[k] === op) ?? op;
    return ok ? null : `${opName}: a process of ${who} (a restricted peer) may not use the space ${name.slice(0, 100)}, which was not given to that peer`;
  }
  if (typeof inner[1] !== 'string' || !Number.isInteger(inner[2])) return null; // handleFrame says what is wrong
  const pid = new Pid(inner[1], inner[2]);
  const proc = d.node.local(pid);
  if (proc === null) return null;
  const what = `${FRAMES[inner[0]]?.[0] ?? inner[0]} to process ${pid.n} from a process of ${who}`;
  if (!d.mayReach(owner, pid, proc)) return `${what} refused: ${who} is a restricted peer and was not given that pid`;
  return inner.length < 5 ? null : d.checkMentions(owner, inner[3], what);
}

/**
 * The answer to an AS request from `from`: a SPAWN, MIGRATE or SERVICE made by a
 * process of `owner` on `from`. When `owner` is restricted here it is checked as if
 * `owner` asked (a MIGRATE: what the process carries, not where it comes from — `from`
 * is where it is; a SPAWN: what its thunk and parameters name, not its link, which the
 * sending node writes as its caller's own pid); what it spawns or moves in here is
 * `owner`'s (its quota, its rights), and what the answer hands out counts as given to
 * `owner`.
 * @param {string} from @param {any[]} req
 * @this {Distribution}
 */
export function answerActed(from, req) {
  const { owner, inner, restricted } = unwrapActed.call(this, from, req, ACTED_REQUESTS);
  // a SPAWN's link is its caller, which `from` hosts and writes: a process may name itself
  const caller = inner[0] === R_SPAWN && inner[3] instanceof Pid && inner[3].node === this.node.id ? inner[3].n : -1;
  if (restricted && inner[0] !== R_MIGRATE) this.checkRequest(owner, inner, caller);
  let value = /** @type {any} */ (undefined);
  if (inner[0] === R_SPAWN) value = this.acceptSpawn(owner, inner[1], inner[2], inner[3]);
  else if (inner[0] === R_MIGRATE) {
    if (restricted) checkActedMigration(this, owner, inner[1]);
    value = this.acceptMigration(from, inner[1], owner);
  } else value = this.answerNow(from, inner);
  if (restricted) this.give(owner, value);
  return value;
}

/**
 * Throw when a process of the restricted peer `owner`, migrating here from another node,
 * carries a pid or space of this node that `owner` may not reach (its own pid, and those
 * it left this node with, excepted).
 * @param {Distribution} d @param {string} owner @param {any} state
 */
function checkActedMigration(d, owner, state) {
  const pid = Array.isArray(state) ? state[0] : null;
  if (!(pid instanceof Pid)) return; // acceptMigration says what is wrong
  const also = new Set(d.carried.get(key(pid.node, pid.n)));
  if (pid.node === d.node.id) also.add(pid.n);
  const why = d.checkMentions(owner, state, `MIGRATE of process ${pid.n} for ${owner.slice(0, 12)}`, also);
  if (why !== null) throw new Error(why);
}
