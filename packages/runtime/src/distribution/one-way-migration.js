// @ts-check
/**
 * One-way migration (HOP, frame 13): a process moves to another node in one frame,
 * with no request and no answer. This is how a messenger hops between physical nodes
 * (messengers/prims-messengers.js `%msgr-move`): a hop is then one frame on the wire,
 * where a MIGRATE is a request and its answer.
 *
 *   HOP [13, notice-pid or #f, notice, state, envs]
 *       `state` is the bytes of [process-state envs] (the process-state of a MIGRATE,
 *       migration.js, encoded as a frame of its own so that the notice can be read
 *       even when the state cannot); when the receiver cannot take the process, it
 *       sends `notice` to `notice-pid` (a messenger's credit, back to the controller
 *       of its computation) besides refusing the frame (an ERROR to the sender).
 *
 * Invariants:
 *  - a process is on exactly one node: the sender retires it in the same task as it
 *    hands the frame to the mesh, after checking everything it can check first (the
 *    destination resolves and is reachable, the state encodes, the mesh takes the frame
 *    or queues it in an outbox); any of those failing resumes it here, its move not
 *    made, with the error as `%msgr-move`'s value;
 *  - past that point the process is the receiver's: if the receiver cannot take it
 *    (a limit, a restricted peer's rights, code that cannot be obtained), it is lost,
 *    logged there, and the notice is sent — never two copies, never a retry;
 *  - messages and links follow as after a MIGRATE (migration.js `departed`): the old
 *    node keeps a forwarding entry, and since nothing can arrive between taking the
 *    state and retiring the process, there are no late messages;
 *  - frames from one sender stay in order: a HOP whose state needs code or
 *    environments first holds the sender's later frames behind it (one-way-frames.js
 *    `chain`), so a message sent after the hop never overtakes it;
 *  - a HOP from a restricted peer is checked as its MIGRATE would be (vouching,
 *    checkRequest); its notice goes out only if it names what that peer was given;
 *  - a node with restricted peers of its own migrates with the MIGRATE request (its
 *    rights bookkeeping is on that path): the process then resumes here on failure
 *    with the error as the value, the same outcome.
 *
 * These functions are Distribution's methods (`this` is the Distribution).
 */
import { CodecError } from '@termite/scheme/internal';
import { ErrorObject, VOID, arrayToList } from '@termite/scheme';
import { Pid, NodeRef } from '../termite-values.js';
import { F_HOP, R_MIGRATE, NOT_READY } from './frame-vocabulary.js';
import { departed } from './migration.js';

/** @typedef {import('../termite-node/process.js').Process} Process */
/** @typedef {import('../distribution.js').Distribution} Distribution */

/**
 * Move a process blocked in `%msgr-move` to another node, one way. It resumes there
 * with #!void, or here with an error object as the value when the move was not made.
 * @param {Process} proc @param {NodeRef} ref
 * @param {{pid: Pid, msg: any} | null} notice sent by the receiver if it cannot take the process
 * @returns {Promise<void>}
 * @this {Distribution}
 */
export async function hop(proc, ref, notice) {
  if (this.restricted.size !== 0) {
    await this.migrate(proc, ref, true);
    return;
  }
  let to = this.knownNode(ref);
  /** @type {Pid[]} */
  let links;
  try {
    if (to === null) to = await this.resolveNode(ref);
    if (to === this.node.id) {
      this.node.resumeExternal(proc, { value: VOID });
      return;
    }
    if (!this.mesh.isReachable(to)) throw new Error(`node ${to.slice(0, 12)} is not reachable`);
    const { state } = this.processState(proc);
    links = /** @type {Pid[]} */ (state[3]);
    if (this.passesOn) this.passOn(to, [notice?.pid ?? false, notice?.msg ?? false, state]); // a tab vouches for what it hands on (passing-on.js)
    const bytes = this.encode([F_HOP, notice?.pid ?? false, notice?.msg ?? false, this.encode([state])]);
    this.stats.sent++;
    if (this.holdCount !== 0) this.releaseHolds(to); // destination-holds.js
    if (!(this.outboxes.size === 0 ? this.mesh.send(to, bytes) : this.sendBehind(to, bytes))) queueOrThrow(this, to, bytes);
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    this.node.resumeExternal(proc, { value: new ErrorObject(`cannot migrate: ${msg}`, arrayToList([ref]), 'migrate', 'hop') });
    return;
  }
  this.stats.migrationsOut++;
  this.node.retire(proc);
  departed.call(this, proc, to, [], links);
}

/**
 * The mesh did not take a HOP: it waits in the outbox for `to` when there is one or the
 * queue to `to` is full (back-pressure, send-queue.js); any other refusal (unreachable,
 * too large) is thrown, and the process stays.
 * @param {Distribution} d @param {string} to @param {Uint8Array} bytes
 */
function queueOrThrow(d, to, bytes) {
  const err = d.sendError;
  if (d.outboxes.has(to) || err?.name === 'QueueFullError') {
    d.refused(to, bytes, null);
    return;
  }
  d.sendError = null;
  throw err ?? new Error('the mesh did not take it');
}

/**
 * A HOP from `from`. Taken in this task when its state decodes with the code at hand;
 * otherwise after fetching, in the sender's order (the promise is returned when this
 * runs inside that order already, so that it waits for it).
 * @param {string} from @param {any[]} f
 * @returns {void | Promise<void>}
 * @this {Distribution}
 */
export function onHopFrame(from, f) {
  const [, npid, nmsg, bytes] = f;
  if (f.length !== 5 || !(bytes instanceof Uint8Array) || (npid !== false && !(npid instanceof Pid))) {
    this.refuse(from, 'malformed HOP frame');
    return;
  }
  const notice = npid === false ? null : { pid: npid, msg: nmsg };
  const restricted = this.restricted.size !== 0 && this.restricted.has(from);
  if (!restricted) {
    let inner;
    try {
      inner = this.decodeReady(bytes);
      if (inner !== NOT_READY && !this.stale(inner)) {
        this.acceptMigration(from, stateOf(inner));
        return;
      }
    } catch (e) {
      hopLost(this, from, notice, e);
      return;
    }
  }
  const take = async () => {
    try {
      const inner = await this.decodeFetching(from, bytes);
      if (this.stale(inner)) await this.refresh(from, inner);
      const state = stateOf(inner);
      if (restricted) await this.answer(from, [R_MIGRATE, state, inner[1]]); // vouching, checkRequest, acceptMigration
      else this.acceptMigration(from, state);
      this.node.runArrivedNow();
    } catch (e) {
      hopLost(this, from, notice, e);
    }
  };
  if (this.inbound.has(from)) return take(); // called from the sender's chain: it waits for this
  this.chain(from, take);
}

/** The process state in a HOP's inner frame. @param {any} inner */
function stateOf(inner) {
  if (!Array.isArray(inner) || inner.length !== 2) throw new CodecError('malformed HOP state');
  return inner[0];
}

/**
 * A process that came one way and could not be taken: refused (a log line here, an
 * ERROR to the sender) and its notice sent — for a restricted sender, only a notice
 * made of what it was given.
 * @param {Distribution} d @param {string} from @param {{pid: Pid, msg: any} | null} notice @param {unknown} e
 */
function hopLost(d, from, notice, e) {
  const why = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  d.stats.dropped++;
  d.refuse(from, `a process moving here one way (HOP) was lost: ${why}`);
  if (notice === null) return;
  if (d.restricted.size !== 0 && d.restricted.has(from) && d.checkMentions(from, [notice.pid, notice.msg], 'HOP notice') !== null) return;
  d.node.send(notice.pid, notice.msg);
}
