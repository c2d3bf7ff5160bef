// @ts-check
/**
 * Capability delegation: a restricted peer passes on what it was given
 * (docs/security.md, "A tab passes on what it holds").
 *
 * A node B records, for each restricted peer T, the pids of its processes and the names
 * of its local spaces T holds: given to T by B, or vouched to B for T by a daemon
 * (vouching.js). A tab T1 that hands one of them to another tab T2 — in a message, a
 * migrating process's state, a spawned thunk, over a link between the two tabs where no
 * daemon sees it — tells B first, with the same VOUCH request a daemon sends (`passOn`,
 * on the tab; `[36, T2, false, serials(, names)]`). B believes a restricted voucher only
 * for what that voucher holds itself (`holderVouchRefusal`): a VOUCH naming anything T1
 * does not hold on B is refused whole, with the reason, and nothing of it is recorded.
 * A restricted voucher's word does not restrict anyone (its `browser` flag is not
 * believed): B records for T2 only when B restricts T2 already (a tab reaching B
 * through a daemon is restricted as the first gossip or routed frame marks it).
 *
 * Invariants:
 *  - `passOn` runs only on a node that passes on (option `vouchWhenPassingOn`, the web
 *    runtime): that node's `send`, `emit`, `call` and `answerNow` are wrapped
 *    (`wirePassingOn`), and a hop tests `passesOn`; every other node's send paths are
 *    unchanged (a daemon gives instead, capabilities.js `give`);
 *  - a tab vouches for pids of third nodes only (not its own, not the receiver's, not a
 *    process that lives here now: a guest), each once per receiver (`told`, vouching.js,
 *    MAX_GIVEN per receiver and node); a value is first scanned without allocating (at
 *    most PLAIN_SCAN values: most messages hold no reference and cost only that), then
 *    searched to CHECK_LIMIT values, as far
 *    as its receiver's node checks it (a migrating process with a 100,000-element list
 *    carries its pids past WALK_LIMIT, which bounds what a daemon records)
 *  - on B, a restricted voucher's entries count against the same MAX_GIVEN per voucher
 *    as a daemon's, and a refused VOUCH is logged once a second at most.
 *
 * These functions are Distribution's methods (`this` is the Distribution).
 */
import { Closure, Frame } from '@termite/scheme';
import { eachReference, CHECK_LIMIT } from './capabilities.js';
import { Pid, SpaceRef } from '../termite-values.js';
import { key, F_SEND, F_SIGNAL, F_LINK, F_UNLINK, F_KILL, F_EXITED } from './frame-vocabulary.js';
import { F_SPACE_OP } from '../linda/remote-spaces.js';

/** @typedef {import('../distribution.js').Distribution} Distribution */

/**
 * A value about to go to `to` from a node that passes on what it holds (a tab): vouch
 * to each third node for the pids of its processes and the names of its spaces the
 * value holds, as given to `to` (vouching.js vouchFor sends the requests before the
 * frame leaves, on the same links).
 * @param {string} to @param {unknown} value
 * @this {Distribution}
 */
export function passOn(to, value) {
  if (plainWithin(value, PLAIN_SCAN) >= 0) return; // most messages hold no reference: no walk, no allocation
  const self = this.node.id, guests = this.node.guests;
  /** @type {Map<string, (number | string)[]> | null} */
  let thirds = null;
  const told = this.vouchState?.told.get(to);
  eachReference(value, CHECK_LIMIT, (x) => {
    if (x.node === self || x.node === to) return;
    /** @type {number | string} */
    let item;
    if (x instanceof Pid) {
      if (guests.size !== 0 && guests.has(key(x.node, x.n))) return; // it lives here: this node answers for it
      item = x.n;
    } else if (x.kind !== 'distributed') item = x.name;
    else return;
    if (told?.get(x.node)?.has(item) ?? false) return;
    thirds ??= new Map();
    const list = thirds.get(x.node);
    if (list === undefined) thirds.set(x.node, [item]);
    else list.push(item);
  });
  if (thirds !== null) this.vouchFor(to, thirds);
}

/** Values a message is scanned for references before the full walk. */
const PLAIN_SCAN = 256;

/**
 * What is left of `n` once `x` is scanned and found to hold no Pid or SpaceRef; -1 when
 * it holds one, or when `n` values were not enough, or for a value the scan does not
 * follow (a closure, a continuation frame, a Map or Set: the full walk decides).
 * @param {unknown} x @param {number} n @returns {number}
 */
function plainWithin(x, n) {
  if (x === null || typeof x !== 'object' || ArrayBuffer.isView(x)) return n;
  if (--n < 0 || x instanceof Pid || x instanceof SpaceRef || x instanceof Map || x instanceof Set) return -1;
  if (Array.isArray(x)) {
    for (let i = 0; i < x.length && n >= 0; i++) n = plainWithin(x[i], n);
    return n;
  }
  if (x instanceof Closure || x instanceof Frame) return -1; // code's values: the full walk follows them
  for (const k in x) if ((n = plainWithin(/** @type {any} */ (x)[k], n)) < 0) return -1;
  return n;
}

/**
 * Make the node `d` vouch for what it passes on: its one-way frames (`send`, `emit`),
 * requests (`call`) and answers (`answerNow`: a program environment's definitions, a
 * service's pid) to another peer go through `passOn` first. The methods are wrapped on
 * this node alone, so the send paths of a node that does not pass on stay as they are.
 * @param {Distribution} d
 */
export function wirePassingOn(d) {
  const { send, emit, call, answerNow } = d;
  d.send = (pid, msg) => (d.passOn(d.whereIs(pid), msg), send.call(d, pid, msg));
  d.emit = (to, frame, pid = null) => (d.passOn(to, frame), emit.call(d, to, frame, pid));
  d.call = (to, req, wait, owner, timeoutMs) => (d.passOn(to, req), call.call(d, to, req, wait, owner, timeoutMs));
  d.answerNow = (from, req) => {
    const value = answerNow.call(d, from, req);
    d.passOn(from, value);
    return value;
  };
}

/** The one-way frames an AS frame may carry (capabilities.js ACTS). */
const RELAYED = new Set([F_SEND, F_SIGNAL, F_LINK, F_UNLINK, F_KILL, F_EXITED, F_SPACE_OP]);

/**
 * An AS frame from a restricted peer: a tab forwarding, unchanged, a frame a daemon
 * wrapped for a process that has since moved on from the tab (the frame follows the
 * process). The owner it names is not believed — a tab acts for no other node, and
 * naming a tab would have it restricted — so its inner frame is handled as the tab's
 * own frame, with the tab's rights (a process that passed through the tab is one it may
 * reach): the tab gets nothing it could not have sent itself.
 * @param {string} from @param {any[]} f @param {Uint8Array} bytes
 * @this {Distribution}
 */
export function relayedByHolder(from, f, bytes) {
  const inner = f[3];
  if (f.length !== 5 || !Array.isArray(inner) || !RELAYED.has(inner[0])) {
    this.refuse(from, 'malformed AS frame');
    return;
  }
  inner.push(f[4]);
  this.handleFrame(from, inner, bytes);
}

/**
 * Why this node refuses a VOUCH from the restricted peer `from` for `peer`: it names a
 * pid or a space of this node that `from` does not hold here, or `from` vouches for
 * itself. Null when every item is one `from` holds.
 * @param {string} from @param {string} peer @param {number[]} serials @param {string[]} names
 * @returns {string | null}
 * @this {Distribution}
 */
export function holderVouchRefusal(from, peer, serials, names) {
  const who = from.slice(0, 12);
  if (peer === from) return `VOUCH refused: ${who} is a restricted peer and vouches for itself`;
  const self = this.node.id;
  for (const n of serials) {
    const pid = new Pid(self, n);
    if (!this.mayReach(from, pid, this.node.local(pid))) return `VOUCH refused: ${who} is a restricted peer and does not hold process ${n}, which it vouches for`;
  }
  for (const name of names) {
    if (!this.maySpace(from, name)) return `VOUCH refused: ${who} is a restricted peer and does not hold space ${name.slice(0, 100)}, which it vouches for`;
  }
  return null;
}
