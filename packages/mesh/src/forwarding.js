// @ts-check
/**
 * Forwarding: ROUTE frames arriving on a link (docs/mesh.md §9). One addressed to
 * this node is unwrapped and its inner frame received as if from its source; any
 * other is forwarded one hop closer to its destination, never back to the neighbour
 * it came from.
 *
 * Invariants:
 * - a ROUTE whose ids are not node ids counts against the link's error budget;
 * - only end-to-end frame types (frames.js ROUTABLE) are received from inside a ROUTE;
 * - a frame that cannot go on (hop limit used up, no route, next queue full) is
 *   answered to its source: RES_ERR for a request (so request() fails at once),
 *   ERROR otherwise, nothing for an error (no error storms);
 * - a routed MSG reaches the message handlers by the same call as a direct one;
 * - every ROUTE received from a daemon notes its source's way back (paths.noteReverse),
 *   so an answer to a node not yet known from gossip retraces the request's path;
 * - the browser mark travels: a ROUTE received from a browser peer, or marked so by an
 *   earlier hop, is forwarded marked, and its destination reports its source as a
 *   browser origin (`onBrowserOrigin`) before it
 *   receives the inner frame; a marked ROUTE naming as its source this node or a node
 *   linked here as a daemon is refused (a page posing as a daemon).
 */
import { T, ROUTABLE, decodeFrame, encodeError, encodeResErr, encodeRoute, msgPayload, peekType, typeName } from './frames.js';
import { HopLimitError, MalformedFrameError, QueueFullError, UnreachableError } from './errors.js';
import { isNodeId } from './identity.js';

/** @typedef {import('./link.js').Link} Link */

/**
 * @typedef {object} ForwardingInit
 * @property {string} localId this node's id
 * @property {number} hopLimit hops a frame this node originates may take
 * @property {import('./paths.js').Paths} paths
 * @property {Pick<import('./link.js').LinkOwner, '_deliver'>} receiver gets routed MSG payloads
 * @property {(from: string, f: import('./frames.js').Frame, link: Link | null, via: string) => void} receiveEndToEnd
 *   gets every other routed end-to-end frame, with the neighbour it came from
 * @property {import('./logger.js').Logger} logger the route log
 * @property {(peerId: string) => boolean} isBrowserPeer whether a direct peer joined from a browser
 * @property {(peerId: string) => boolean} isDaemonPeer whether a node is a direct peer that did not
 * @property {(id: string, via: string) => void} onBrowserOrigin a routed frame for this node came
 *   into the mesh from a browser at `id` (the node reports each once: mesh-node.js)
 */

export class Forwarding {
  #localId;
  #hopLimit;
  /** @type {import('./paths.js').Paths} */
  #paths;
  /** @type {Pick<import('./link.js').LinkOwner, '_deliver'>} */
  #receiver;
  /** @type {ForwardingInit['receiveEndToEnd']} */
  #receiveEndToEnd;
  /** @type {import('./logger.js').Logger} */
  #log;
  /** @type {ForwardingInit['isBrowserPeer']} */
  #isBrowserPeer;
  /** @type {ForwardingInit['isDaemonPeer']} */
  #isDaemonPeer;
  /** @type {ForwardingInit['onBrowserOrigin']} */
  #onBrowserOrigin;

  /** @param {ForwardingInit} init */
  constructor(init) {
    this.#localId = init.localId;
    this.#hopLimit = init.hopLimit;
    this.#paths = init.paths;
    this.#receiver = init.receiver;
    this.#receiveEndToEnd = init.receiveEndToEnd;
    this.#log = init.logger;
    this.#isBrowserPeer = init.isBrowserPeer;
    this.#isDaemonPeer = init.isDaemonPeer;
    this.#onBrowserOrigin = init.onBrowserOrigin;
  }

  /**
   * A ROUTE frame: deliver it here, or forward it one hop closer.
   * @param {Link} link @param {import('./frames.js').RouteFrame} f
   */
  onRoute(link, f) {
    if (!isNodeId(f.dst) || !isNodeId(f.src)) {
      link.reportBad(new MalformedFrameError(`ROUTE with an invalid node id (dst ${JSON.stringify(f.dst).slice(0, 80)}, src ${JSON.stringify(f.src).slice(0, 80)})`), T.ROUTE);
      return;
    }
    // the mark is set by the first hop that knows the source's side is a browser
    const browser = f.browser === true || this.#isBrowserPeer(link.peerId);
    if (browser && !this.#browserSource(link, f)) return;
    // the way back to the source (used while no route to it is known); a page speaks only for itself
    if (f.src !== link.peerId && !this.#isBrowserPeer(link.peerId)) this.#paths.noteReverse(f.src, link.peerId);
    if (f.dst === this.#localId) {
      const p = msgPayload(f.inner);
      if (p !== null) {
        this.#receiver._deliver(f.src, p);
        return;
      }
      this.#receiveInner(link, f);
      return;
    }
    if (f.hopsLeft <= 1) {
      this.#routeError(f, new HopLimitError(f.dst, this.#hopLimit));
      return;
    }
    const { link: next } = this.#paths.route(f.dst, link.peerId);
    if (next === null) {
      this.#routeError(f, new UnreachableError(f.dst, `no route from ${this.#localId}`));
      return;
    }
    if (!next.sendFrame(encodeRoute(f.dst, f.src, f.hopsLeft - 1, f.inner, browser), f.src)) {
      this.#routeError(f, new QueueFullError(f.dst, next.queuedBytes, next.maxQueueBytes));
    }
  }

  /**
   * A ROUTE that came into the mesh from a browser: refused (false) when it names as its
   * source this node or a daemon linked here (a page cannot be one); else, when it is
   * for this node, its source is reported as a browser origin first.
   * @param {Link} link @param {import('./frames.js').RouteFrame} f
   */
  #browserSource(link, f) {
    if (f.src === this.#localId || this.#isDaemonPeer(f.src)) {
      link.reportBad(new MalformedFrameError(`ROUTE from a browser names ${f.src.slice(0, 12)} as its source, a node linked to ${this.#localId.slice(0, 12)} as a daemon`), T.ROUTE);
      return false;
    }
    if (f.dst === this.#localId && f.src !== link.peerId) this.#onBrowserOrigin(f.src, link.peerId);
    return true;
  }

  /**
   * A routed frame for this node other than MSG: decode it and receive it from its source.
   * @param {Link} link @param {import('./frames.js').RouteFrame} f
   */
  #receiveInner(link, f) {
    let inner;
    try {
      inner = decodeFrame(f.inner);
    } catch (e) {
      this.#log.warn('bad routed frame', { from: f.src, via: link.peerId, error: /** @type {Error} */ (e).message });
      if (peekType(f.inner) !== T.ERROR) this.#paths.sendUrgent(f.src, encodeError(/** @type {Error} */ (e).name, /** @type {Error} */ (e).message, false, peekType(f.inner)));
      return;
    }
    if (!ROUTABLE.has(inner.type)) {
      this.#paths.sendUrgent(f.src, encodeError('UnexpectedFrameError', `${typeName(inner.type)} cannot be routed`, false, inner.type));
      return;
    }
    this.#receiveEndToEnd(f.src, inner, null, link.peerId);
  }

  /**
   * Tell the source of a routed frame that it was not delivered: a RES_ERR
   * for a request (so request() fails at once), an ERROR otherwise, never
   * anything for an error.
   * @param {import('./frames.js').RouteFrame} f @param {Error} err
   */
  #routeError(f, err) {
    this.#log.warn('routed frame not delivered', { from: f.src, to: f.dst, error: err.message });
    const t = peekType(f.inner);
    if (t === T.ERROR || t === T.RES_ERR || t === null) return;
    let reply;
    if (t === T.REQ) {
      try {
        const req = /** @type {import('./frames.js').ReqFrame} */ (decodeFrame(f.inner));
        reply = encodeResErr(req.id, err.name, err.message);
      } catch {
        return;
      }
    } else reply = encodeError(err.name, err.message, false, t);
    if (f.src !== this.#localId) this.#paths.sendUrgent(f.src, reply);
  }
}
