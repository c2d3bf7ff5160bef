// @ts-check
/**
 * RequestService: requests between nodes (docs/mesh.md §10). Outbound, request()
 * sends a REQ and waits in PendingRequests (pending-requests.js) for the RES or
 * RES_ERR that answers it; inbound, a REQ goes to the node's one request handler
 * and its result goes back as RES (a Uint8Array) or RES_ERR (a throw, a
 * rejection, anything else).
 *
 * Invariants:
 * - every REQ received is answered exactly once, with RES or RES_ERR (no handler:
 *   NoHandlerError; more than maxInflightRequests asynchronous answers pending:
 *   TooManyRequestsError), unless the node stops or the path is gone meanwhile;
 * - a response is matched only to a pending request sent to the node it comes
 *   from; a late or unknown one is dropped;
 * - handlers see the node's life signal, aborted by stop();
 * - a request that goes out through a relay is sent again another way if that relay
 *   goes before the answer comes (routed-requests.js), and one that came through a
 *   relay is run once whatever copies of it arrive (request-dedup.js): its answer goes
 *   the latest copy's way, again for a copy of one already answered.
 */
import { T, encodeIdPayload, encodeResErr } from './frames.js';
import { holdWritesThroughMicrotasks } from './connection.js';
import { NoHandlerError, NotStartedError, PeerDownError, TooManyRequestsError } from './errors.js';
import { PendingRequests } from './pending-requests.js';
import { RoutedRequests } from './routed-requests.js';
import { ARRIVAL, RequestDedup } from './request-dedup.js';

/**
 * @typedef {object} RequestServiceInit
 * @property {string} localId this node's id
 * @property {import('./options.js').MeshNodeOptions} options
 * @property {import('./paths.js').Paths} paths
 * @property {() => AbortSignal} lifeSignal the signal stop() aborts (a new one per start)
 * @property {import('./logger.js').Logger} logger
 */

export class RequestService {
  #localId;
  /** @type {import('./options.js').MeshNodeOptions} */
  #o;
  /** @type {import('./paths.js').Paths} */
  #paths;
  /** @type {() => AbortSignal} */
  #lifeSignal;
  /** @type {import('./logger.js').Logger} */
  #log;
  /** @type {PendingRequests} */
  #pending;
  /** @type {import('./mesh-port.js').RequestHandler | null} */
  #handler = null;
  #inflight = 0;
  /** @type {RoutedRequests} */
  #routed;
  #dedup = new RequestDedup();

  /** @param {RequestServiceInit} init */
  constructor(init) {
    this.#localId = init.localId;
    this.#o = init.options;
    this.#paths = init.paths;
    this.#lifeSignal = init.lifeSignal;
    this.#log = init.logger;
    this.#pending = new PendingRequests(this.#o.maxPendingRequests, (id) => this.#routed.settled(id));
    this.#routed = new RoutedRequests({
      paths: this.#paths, logger: this.#log,
      fail: (id, err) => this.#pending.fail(id, err),
    });
  }

  /**
   * Set the request handler (replacing any); returns its removal.
   * @param {import('./mesh-port.js').RequestHandler} handler
   */
  setHandler(handler) {
    this.#handler = handler;
    return () => { if (this.#handler === handler) this.#handler = null; };
  }

  /**
   * Send a REQ (arguments already checked by MeshNode.request) and wait for its answer.
   * @param {string} peerId @param {Uint8Array} payload @param {{timeoutMs?: number, signal?: AbortSignal}} options
   * @returns {Promise<Uint8Array>}
   */
  request(peerId, payload, options) {
    let r;
    try {
      r = this.#pending.add(peerId, options.timeoutMs ?? this.#o.requestTimeoutMs, options.signal);
    } catch (e) {
      return Promise.reject(e);
    }
    const frame = encodeIdPayload(T.REQ, r.id, payload);
    const err = this.#paths.trySend(peerId, frame);
    if (err !== null) this.#pending.fail(r.id, err);
    else {
      const d = this.#paths.pathTo(peerId);
      if (d.routed && d.link !== null) this.#routed.sent(r.id, peerId, frame, d.link.peerId);
    }
    return r.promise;
  }

  /** @param {string} from @param {number} id @param {Uint8Array} payload */
  onResponse(from, id, payload) {
    if (!this.#pending.resolve(from, id, payload)) this.#log.debug('late or unknown response', { from, id });
  }

  /** @param {string} from @param {number} id @param {string} name @param {string} message */
  onErrorResponse(from, id, name, message) {
    if (!this.#pending.reject(from, id, name, message)) this.#log.debug('late or unknown error response', { from, id });
  }

  /**
   * The last link to `peerId` closed: its pending requests fail.
   * @param {string} peerId @param {string} reason
   */
  peerDown(peerId, reason) {
    this.#pending.failPeer(peerId, new PeerDownError(peerId, reason));
    this.#routed.hopDown(peerId);
  }

  /** The node stopped: every pending request fails. */
  stop() {
    this.#pending.failAll(new NotStartedError('node stopped'));
    this.#routed.clear();
    this.#dedup.clear();
  }

  /**
   * A REQ from `from`, through neighbour `via` (null: on a direct link).
   * @param {string} from @param {number} id @param {Uint8Array} payload @param {string | null} [via]
   */
  onRequest(from, id, payload, via = null) {
    const arrived = this.#dedup.arrived(from, id, via);
    if (arrived.arrival === ARRIVAL.COPY) {
      this.#answerCopy(from, id, /** @type {import('./request-dedup.js').Seen} */ (arrived.seen));
      return;
    }
    const h = this.#handler;
    const fail = (/** @type {{name?: string, message?: string}} */ e) => this.#answer(from, id, encodeResErr(id, String(e?.name ?? 'Error'), String(e?.message ?? e)));
    if (h === null) {
      fail(new NoHandlerError(this.#localId));
      return;
    }
    if (this.#inflight >= this.#o.maxInflightRequests) {
      fail(new TooManyRequestsError(this.#o.maxInflightRequests));
      return;
    }
    let r;
    try {
      r = h(from, payload, { signal: this.#lifeSignal() });
    } catch (e) {
      fail(/** @type {Error} */ (e));
      return;
    }
    if (r instanceof Uint8Array) {
      this.#reply(from, id, r);
      // what the request started (a spawned process, run at the end of this task) leaves
      // in the same write as the answer
      holdWritesThroughMicrotasks();
      return;
    }
    this.#inflight++;
    Promise.resolve(r).then((res) => this.#reply(from, id, res), fail).finally(() => { this.#inflight--; });
  }

  /** @param {string} from @param {number} id @param {unknown} res */
  #reply(from, id, res) {
    if (!(res instanceof Uint8Array)) {
      this.#answer(from, id, encodeResErr(id, 'InvalidArgumentError', `the request handler returned ${typeof res}, not a Uint8Array`));
      return;
    }
    const e = this.#answer(from, id, encodeIdPayload(T.RES, id, res));
    if (e) this.#log.warn('response not sent', { to: from, id, error: e.message });
  }

  /**
   * Send an encoded RES or RES_ERR: on the current path, or the way the request's latest
   * copy came if one came while it was handled, or the way it came if its sender has just
   * gone around the neighbour the current path uses.
   * @param {string} from @param {number} id @param {Uint8Array} frame @returns {Error | null}
   */
  #answer(from, id, frame) {
    const seen = this.#dedup.answered(from, id, frame);
    if (seen === null || (!seen.copied && (seen.via === null || !this.#paths.answerAround(from, seen.via)))) return this.#paths.trySend(from, frame);
    return this.#paths.sendVia(from, frame, seen.via) ? null : this.#paths.trySend(from, frame);
  }

  /**
   * A copy of a request remembered here (its sender lost the relay it went through):
   * being handled, its answer will go the copy's way; answered, the kept answer goes
   * again; answered but not kept, the sender is told, and nothing is run twice.
   * @param {string} from @param {number} id @param {import('./request-dedup.js').Seen} seen
   */
  #answerCopy(from, id, seen) {
    this.#log.info('copy of a routed request', { from, id, via: seen.via, answered: seen.doneAt !== 0 });
    if (seen.doneAt === 0) return;
    const frame = seen.reply ?? encodeResErr(id, 'ReplyLostError', `request ${id} was answered by ${this.#localId}, but its answer was too large to keep for a copy of the request; it is not run twice`);
    if (!this.#paths.sendVia(from, frame, seen.via)) this.#paths.trySend(from, frame);
  }
}
