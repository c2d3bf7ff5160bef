// @ts-check
/**
 * Heartbeats: failure detection on every link (docs/mesh.md §8). A check runs every
 * min(heartbeatIntervalMs, max(20, peerTimeoutMs / 8)) ms; it closes a link that
 * received nothing for peerTimeoutMs, PINGs a link not pinged for
 * heartbeatIntervalMs, and lets each link expire its stale reassemblies.
 *
 * Invariants: a silent link is closed within peerTimeoutMs × 9/8; the check runs
 * only between start() and stop(). A check that runs more than peerTimeoutMs / 2 after
 * the previous one finds this node stalled (a long synchronous task, such as compiling
 * a large library): what peers sent meanwhile is still unread, so it closes nothing
 * and the next check judges (never two checks in a row are spared).
 */

/**
 * @typedef {object} HeartbeatsInit
 * @property {Map<string, import('./peer-table.js').Peer>} peers direct peers (PeerTable.byId)
 * @property {import('./options.js').MeshNodeOptions} options
 * @property {import('./logger.js').Logger} logger
 */

export class Heartbeats {
  /** @type {Map<string, import('./peer-table.js').Peer>} */
  #peers;
  /** @type {import('./options.js').MeshNodeOptions} */
  #o;
  /** @type {import('./logger.js').Logger} */
  #log;
  /** @type {ReturnType<typeof setInterval> | null} */
  #tick = null;
  /** when the last check ran */
  #lastCheck = 0;
  /** whether the last check was a stalled one that closed nothing (never two in a row) */
  #spared = false;

  /** @param {HeartbeatsInit} init */
  constructor(init) {
    this.#peers = init.peers;
    this.#o = init.options;
    this.#log = init.logger;
  }

  start() {
    const checkMs = Math.min(this.#o.heartbeatIntervalMs, Math.max(20, this.#o.peerTimeoutMs / 8));
    this.#lastCheck = Date.now();
    this.#tick = setInterval(() => this.#check(), checkMs);
  }

  stop() {
    if (this.#tick) clearInterval(this.#tick);
    this.#tick = null;
  }

  #check() {
    const now = Date.now();
    const { heartbeatIntervalMs: every, peerTimeoutMs: timeout } = this.#o;
    // a starved node (every check late) still closes silent links: one check is spared, not two
    const stalled = now - this.#lastCheck > timeout / 2 && !this.#spared;
    this.#spared = stalled;
    this.#lastCheck = now;
    for (const p of [...this.#peers.values()]) {
      for (const l of [...p.links]) {
        const silent = now - l.lastSeen;
        if (silent > timeout && !stalled) {
          this.#log.warn('heartbeat timeout', { peer: p.id, transport: l.transport, silentMs: silent });
          l.close(`heartbeat timeout: nothing received for ${silent} ms`);
          continue;
        }
        if (now - l.lastPingAt >= every) l.ping(now);
        l.tick(now);
      }
    }
  }
}
