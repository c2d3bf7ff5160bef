// @ts-check
/**
 * Migration and location transparency (Termite §6). A pid names the node that created
 * the process. When a process migrates (`migrate`, a MIGRATE request carrying
 * `processState`), its old node keeps a forwarding entry (`forwarding`) and sends there
 * itself from then on (`location`); a message arriving for it is forwarded and its
 * sender's node told where the process now lives (MOVED, handled in one-way-frames.js),
 * so later messages go straight there. When the process ends, the nodes it lived on drop
 * their entries: GONE goes back along the path it took, each node telling the one it
 * came from (`cameFrom`, each node once), since each node believes a GONE only from the node it forwards
 * the process to or sends its messages to (`processGone`) — from any other peer, a GONE
 * would let that peer make this node drop a live process's messages.
 *
 * Invariants:
 *  - a process is on exactly one node: the old node retires it only after the new node
 *    accepted it, and resumes it with an error raised if that failed;
 *  - no message is lost to a move: messages that arrived while the state was in flight
 *    follow it, in order, after the mailbox that went with it;
 *  - no link is lost to a move: links made while the state was in flight follow it (a
 *    LINK each), and monitors of callers here become relays linked from it there;
 *  - a process's visited list names each node once (a process hopping back and forth
 *    would otherwise ship a list growing by one id per hop);
 *  - `arrivals` keeps the last ARRIVALS_KEPT processes that arrived, numbered: a
 *    dashboard that samples every node now and then still sees a process that came and
 *    left between two samples.
 *
 * These functions are Distribution's methods (`this` is the Distribution), moved here whole.
 */
import { CodecError } from '@termite/scheme/internal';
import { threadToData, threadFromData, ErrorObject, VOID, arrayToList } from '@termite/scheme';
import { Pid, NodeRef } from '../termite-values.js';
import { F_SEND, F_GONE, F_MOVED, F_LINK, R_MIGRATE, key } from './frame-vocabulary.js';
import { targetMoved } from '../termite-node/monitors.js';

/** How many recent arrivals a node keeps for dashboards (Distribution#arrivals). */
export const ARRIVALS_KEPT = 32;

/** @typedef {import('../termite-node/process.js').Process} Process */
/** @typedef {import('../distribution.js').Distribution} Distribution */

/**
 * Move a suspended process (blocked in `migrate`) to another node. On success the
 * process continues there and this node keeps a forwarding entry; on failure it is
 * resumed here with the error raised.
 * @param {Process} proc @param {NodeRef} ref
 * @param {boolean} [failAsValue] resume with the error as the value instead of raising it
 *   (a messenger's hop, one-way-migration.js, which has no handler to catch it)
 * @this {Distribution}
 */
export async function migrate(proc, ref, failAsValue = false) {
  let to;
  let seen = 0;
  /** @type {Pid[]} */
  let shippedLinks = [];
  try {
    to = await this.resolveNode(ref);
    if (to === this.node.id) {
      this.node.resumeExternal(proc, { value: VOID });
      return;
    }
    const { state, shippedUpTo } = this.processState(proc);
    seen = shippedUpTo;
    shippedLinks = [.../** @type {Pid[]} */ (state[3])];
    if (this.restricted.size !== 0 && proc.pid.node === this.node.id) this.noteCarried(proc.pid, state);
    await this.call(to, [R_MIGRATE, state], true, this.restricted.size === 0 ? null : this.actingFor(proc));
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    const err = new ErrorObject(`cannot migrate: ${msg}`, arrayToList([ref]), 'migrate', 'migrate');
    this.node.resumeExternal(proc, failAsValue ? { value: err } : { raise: err });
    return;
  }
  this.stats.migrationsOut++;
  const k = key(proc.pid.node, proc.pid.n);
  // messages that arrived while it was moving follow it, in order
  const late = [];
  for (let c = seen + 1, n = 0; n < 1e7; n++) {
    const m = this.node.peekMessage(proc, c);
    if (m === undefined) break;
    late.push(m.value);
    c = m.seq + 1;
  }
  this.node.retire(proc);
  // It may be back already: the node it went to sent it straight back, and that
  // MIGRATE was handled before this answer was read (a socket's messages that arrive
  // together are handled before any promise reaction). It lives here then, or lived and
  // ended: no forwarding entry (it would outlive the process, forward its messages to
  // where it once went, and vouch for it there, whereabouts.js), and the late messages
  // are its own.
  const back = this.node.guests.get(k);
  if (this.cameBackWhileLeaving.delete(proc) || (back !== undefined && back !== proc && back.alive)) {
    if (back !== undefined && back !== proc && back.alive) for (const m of late) this.deliverLate(back, m);
    return;
  }
  departed.call(this, proc, to, late, shippedLinks);
}

/**
 * A process of this node now lives on `to` (a MIGRATE accepted, or a HOP handed to the
 * mesh, one-way-migration.js): the forwarding entry, the messages and links that came
 * while it was moving, its monitors, and its birth node told where it went.
 * @param {Process} proc @param {string} to @param {any[]} late @param {Pid[]} shippedLinks
 * @this {Distribution}
 */
export function departed(proc, to, late, shippedLinks) {
  const k = key(proc.pid.node, proc.pid.n);
  this.forwarding.set(k, to);
  this.location.set(k, to);
  if (this.movedAhead.size !== 0 || this.placeWaits.size !== 0) this.locationChanged(k, proc.pid);
  for (const m of late) this.emit(to, [F_SEND, proc.pid.node, proc.pid.n, m]);
  // links made while it was moving (a `!?`'s monitor) follow it too, and so do the
  // monitors of callers on this node
  for (const l of proc.links ?? []) if (!shippedLinks.includes(l)) this.emit(to, [F_LINK, proc.pid.node, proc.pid.n, l]);
  targetMoved(this.node, proc);
  // its birth node hears where it went from here (it believes that from this node only:
  // it sends the process's messages here), so it knows where it is when the process
  // comes home — a restricted peer may move a process in only from where it is known
  // to be (capabilities.js)
  const born = proc.pid.node;
  if (born !== this.node.id && born !== to && this.mesh.isReachable(born)) this.emit(born, [F_MOVED, born, proc.pid.n, to]);
}

/**
 * A process's whole state, with its continuation resuming as a return of #!void
 * from `migrate`, and the sequence number of the last message shipped with it.
 * @param {Process} proc
 * @this {Distribution}
 */
export function processState(proc) {
  const saved = { act: proc.act, val: proc.val };
  proc.act = 1; // ACT_RETURN
  proc.val = VOID;
  const thread = threadToData(proc, null);
  proc.act = saved.act;
  proc.val = saved.val;
  const mailbox = [];
  let last = 0;
  for (let c = 0, n = 0; n < 1e7; n++) {
    const m = this.node.peekMessage(proc, c);
    if (m === undefined) break;
    mailbox.push(m.value);
    last = m.seq;
    c = m.seq + 1;
  }
  // each node once (a process hopping back and forth would otherwise ship a list growing by one id per hop)
  const visited = proc.visited?.includes(this.node.id) ? proc.visited : [...(proc.visited ?? []), this.node.id];
  return { state: [proc.pid, thread, mailbox, proc.links ?? [], visited], shippedUpTo: last };
}

/**
 * @param {string} from @param {any} state
 * @param {string} [peer] whose the process is here (its quota, its rights): `from`, or the
 *   restricted peer a process acts for (capabilities.js, answerActed)
 * @this {Distribution}
 */
export function acceptMigration(from, state, peer = from) {
  if (!Array.isArray(state) || state.length !== 5 || !(state[0] instanceof Pid)) throw new CodecError('malformed process state');
  const [pid, thread, mailbox, links, visited] = state;
  if (!Array.isArray(mailbox) || !Array.isArray(links) || !links.every((l) => l instanceof Pid) || !Array.isArray(visited)) {
    throw new CodecError('malformed process state (mailbox, links and visited nodes must be vectors; links, of pids)');
  }
  // a mailbox over this node's limit is refused whole, before anything is adopted: the
  // process stays where it is, with this reason raised in it
  const max = this.node.limits.maxMailbox;
  if (mailbox.length > max) {
    throw new Error(`its mailbox holds ${mailbox.length} messages, over the limit of ${max} messages a mailbox may hold on node ${this.node.id.slice(0, 12)}`);
  }
  // the copy that left and is still waiting for its answer (migrate), if any: it must
  // not leave a forwarding entry behind when that answer comes
  const leaving = this.node.local(pid);
  const proc = this.node.adopt(pid, threadFromData(thread, null), peer);
  proc.visited = visited;
  proc.links = links.length > 0 ? links : null;
  try {
    for (const m of mailbox) this.node.deliver(proc, m);
  } catch (e) {
    this.node.retire(proc); // never two copies: the MIGRATE fails, the process runs on where it was
    throw e;
  }
  if (leaving !== null && leaving !== proc) this.cameBackWhileLeaving.add(leaving);
  this.location.delete(key(pid.node, pid.n));
  this.forwarding.delete(key(pid.node, pid.n));
  this.carried.delete(key(pid.node, pid.n));
  this.forgetWhereabouts(key(pid.node, pid.n));
  // where GONE goes when it ends here or leaves and ends elsewhere: every node it came
  // here from (a process coming back adds the node it came back from), each once
  const back = this.cameFrom.get(key(pid.node, pid.n));
  if (back === undefined) this.cameFrom.set(key(pid.node, pid.n), [from]);
  else if (!back.includes(from)) back.push(from);
  this.stats.migrationsIn++;
  this.arrivals.push({ seq: ++this.arrivalSeq, pid: `${pid.n}@${pid.node.slice(0, 8)}`, from, name: proc.name ?? proc.k?.lam?.name ?? 'process' });
  if (this.arrivals.length > ARRIVALS_KEPT) this.arrivals.shift();
  this.node.pokeAfterTask(); // it runs after the answer, as a spawned process does
  return true;
}

/**
 * A message that arrived for a process while it was away, given to it now it is back
 * (migrate): a full mailbox refuses it as it would any message (logged, counted).
 * @param {Process} proc @param {any} msg
 * @this {Distribution}
 */
export function deliverLate(proc, msg) {
  try {
    this.node.deliver(proc, msg);
  } catch (e) {
    this.stats.dropped++;
    this.log(`a message for process ${proc.pid.n}, which came back while it was leaving, was dropped: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/**
 * A process that lived on other nodes ended here: the node it came from is told (GONE),
 * and tells the one before it (processGone), back to where it was born.
 * @param {Process} proc
 * @this {Distribution}
 */
export function processEnded(proc) {
  const k = key(proc.pid.node, proc.pid.n);
  const back = this.cameFrom.get(k);
  if (back === undefined) return;
  this.cameFrom.delete(k);
  for (const id of back) if (id !== this.node.id) this.emit(id, [F_GONE, proc.pid.node, proc.pid.n]);
}

/**
 * A GONE from `from`: the process ended. Believed only from the node this one forwards
 * the process to or sends its messages to (its next host on the path, or where a MOVED
 * said it went): its entries are dropped and the node it came from told in turn. A
 * GONE for a process this node keeps nothing for is ignored (a late duplicate says
 * nothing); from any other node it is refused (a log line, an ERROR to the sender).
 * @param {string} from @param {string} pnode @param {number} pn
 * @this {Distribution}
 */
export function processGone(from, pnode, pn) {
  const k = key(pnode, pn);
  const fw = this.forwarding.get(k), at = this.location.get(k);
  if (fw === undefined && at === undefined) return;
  if (from !== fw && from !== at) {
    this.refuse(from, `GONE for process ${pn} of ${pnode.slice(0, 12)} from ${from.slice(0, 12)}, which is not where this node sends its messages (${(fw ?? at ?? pnode).slice(0, 12)})`);
    return;
  }
  this.forwarding.delete(k);
  this.location.delete(k);
  this.carried.delete(k);
  this.forgetWhereabouts(k);
  const back = this.cameFrom.get(k);
  if (back === undefined) return;
  this.cameFrom.delete(k);
  for (const id of back) if (id !== from && id !== this.node.id) this.emit(id, [F_GONE, pnode, pn]);
}

/**
 * Whether a process of this node left it (RemoteOps#isForwarded): its pid names a live
 * process elsewhere, not a dead one.
 * @param {Pid} pid
 * @this {Distribution}
 */
export function isForwarded(pid) {
  return this.forwarding.has(key(pid.node, pid.n));
}
