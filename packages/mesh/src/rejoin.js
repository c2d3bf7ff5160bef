// @ts-check
/**
 * Rejoin: a node keeps the links it was told to make (init.join). When the peer
 * reached through a join URL goes down — it restarted, its network dropped, the
 * link timed out — or a join failed for a reason that may pass (the peer not
 * listening yet, a full handshake table), the URL is dialled again after a backoff:
 * min(rejoinMaxMs, rejoinBaseMs · 2^n), jittered to a random point in its upper half,
 * so nodes that lost one peer together do not all dial it in the same millisecond.
 * (docs/mesh.md §8, "Rejoin".)
 *
 * Invariants:
 * - at most one dial or one timer per URL at a time; the attempt counter of a URL
 *   resets when a dial to it is admitted;
 * - a URL whose dial was refused for a reason that does not pass (a wrong token, a
 *   bad signature, a protocol version, this node itself) is given up, logged once;
 * - a URL whose peer is up (it dialled us back first) is not dialled: the rejoin
 *   waits for that peer's next 'peer:down';
 * - disconnect(peer) gives up the URLs of that peer (the user asked for it);
 * - nothing is dialled while the node is stopped: the timers live in the node's
 *   TimerSet (cleared by stop()), and a dial in flight is aborted by stop().
 * Nothing is resent over a rejoined link: frames queued on the old link went with
 * it (their senders were told, docs/mesh.md §6); the runtime above decides what a
 * restored peer means (exit signals were delivered at the peer's 'peer:down').
 */

/** Admission refusals that may pass: the URL is dialled again. */
const TRANSIENT_REASONS = new Set(['handshake timeout', 'too many handshakes', 'connection closed', 'node stopping', 'replayed handshake']);

/**
 * @typedef {object} RejoinInit
 * @property {number} baseMs first delay
 * @property {number} maxMs largest delay
 * @property {(url: string, signal: AbortSignal) => Promise<{id: string}>} connect dial and admit
 * @property {(peerId: string) => boolean} isUp the peer has a link now
 * @property {() => boolean} isStarted
 * @property {() => AbortSignal} lifeSignal aborted by stop()
 * @property {import('./timer-set.js').TimerSet} timers
 * @property {import('./logger.js').Logger} logger
 * @property {() => number} [random] in [0, 1) (tests)
 */

/**
 * @typedef {object} JoinUrl
 * @property {string} url
 * @property {string | null} peerId the peer last admitted through it
 * @property {number} attempts dials since the last admission
 * @property {ReturnType<typeof setTimeout> | null} timer
 * @property {boolean} dialling
 */

export class Rejoin {
  /** @type {RejoinInit} */
  #i;
  /** @type {Map<string, JoinUrl>} */
  #urls = new Map();

  /** @param {RejoinInit} init */
  constructor(init) {
    this.#i = init;
  }

  /**
   * A join URL's dial was admitted: its peer is watched from now on.
   * @param {string} url @param {string} peerId
   */
  joined(url, peerId) {
    const u = this.#entry(url);
    u.peerId = peerId;
    u.attempts = 0;
  }

  /**
   * A join URL's dial failed: dial again later if the reason may pass.
   * @param {string} url @param {Error} error
   */
  failed(url, error) {
    const u = this.#entry(url);
    if (!isTransient(error)) {
      this.#i.logger.info('join refused for good: not dialling again', { url, error: error.message });
      this.#urls.delete(url);
      return;
    }
    this.#schedule(u);
  }

  /**
   * A peer went down: dial again the join URLs it was reached through.
   * @param {string} peerId
   */
  peerDown(peerId) {
    for (const u of this.#urls.values()) if (u.peerId === peerId) this.#schedule(u);
  }

  /**
   * The user disconnected a peer: its join URLs are given up.
   * @param {string} peerId
   */
  giveUp(peerId) {
    for (const [url, u] of this.#urls) {
      if (u.peerId !== peerId) continue;
      if (u.timer) this.#i.timers.cancel(u.timer);
      this.#urls.delete(url);
    }
  }

  /** Join URLs being dialled again, with the attempts made since their last admission. */
  pending() {
    return [...this.#urls.values()].filter((u) => u.timer !== null || u.dialling).map((u) => ({ url: u.url, peerId: u.peerId, attempts: u.attempts }));
  }

  /** The node stopped (its TimerSet is cleared): forget the timers. */
  stop() {
    for (const u of this.#urls.values()) u.timer = null;
  }

  /** @param {string} url */
  #entry(url) {
    let u = this.#urls.get(url);
    if (!u) {
      u = { url, peerId: null, attempts: 0, timer: null, dialling: false };
      this.#urls.set(url, u);
    }
    return u;
  }

  /** @param {JoinUrl} u */
  #schedule(u) {
    if (u.timer !== null || u.dialling || !this.#i.isStarted()) return;
    const ceiling = Math.min(this.#i.maxMs, this.#i.baseMs * 2 ** Math.min(u.attempts, 30));
    const delay = Math.round(ceiling * (0.5 + 0.5 * (this.#i.random ?? Math.random)()));
    u.timer = this.#i.timers.after(() => {
      u.timer = null;
      this.#dial(u);
    }, delay);
  }

  /** @param {JoinUrl} u */
  async #dial(u) {
    if (!this.#i.isStarted() || this.#urls.get(u.url) !== u) return;
    if (u.peerId !== null && this.#i.isUp(u.peerId)) return; // it came back by itself
    u.dialling = true;
    u.attempts++;
    try {
      const peer = await this.#i.connect(u.url, this.#i.lifeSignal());
      u.dialling = false;
      this.#i.logger.info('rejoined', { url: u.url, peer: peer.id, attempts: u.attempts });
      this.joined(u.url, peer.id);
    } catch (e) {
      u.dialling = false;
      if (!this.#i.isStarted()) return;
      this.#i.logger.info('rejoin failed: dialling again later', { url: u.url, attempt: u.attempts, error: /** @type {Error} */ (e).message });
      this.failed(u.url, /** @type {Error} */ (e));
    }
  }
}

/** @param {any} e */
function isTransient(e) {
  if (e?.name === 'AdmissionError') return TRANSIENT_REASONS.has(e.reason);
  return e?.name !== 'AbortError' && e?.name !== 'NotStartedError' && e?.name !== 'InvalidArgumentError';
}
