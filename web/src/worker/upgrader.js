// @ts-check
/**
 * When a tab opens WebRTC data channels (docs/browser.md, "Which transport each pair
 * uses"):
 *
 *  - with every daemon it is directly linked to (it joined it over WebSocket), as soon
 *    as the link is up: the tab dials, the daemon answers (node-datachannel);
 *  - with every other tab it learns of (a node without a listen URL, announced by the
 *    daemon's gossip), at most `maxTabLinks` of them: of two tabs only the one with the
 *    smaller id dials, so they never both offer at once;
 *  - with nothing else (other daemons and `termite-node run` nodes are reached through
 *    the daemon, or dialled by WebSocket when a program names their address).
 *
 * Signalling travels over the mesh (through the daemon for tab ↔ tab). A failed attempt
 * is retried after 1 s and 4 s, then left alone: traffic keeps flowing on the path it
 * had (WebSocket to the daemon, routed through it to a tab).
 */

const RETRY_MS = [1000, 4000];

export class Upgrader {
  /**
   * @param {any} mesh a started MeshNode
   * @param {{maxTabLinks: number, log: (s: string) => void, enabled: boolean}} opts
   */
  constructor(mesh, opts) {
    this.mesh = mesh;
    this.maxTabLinks = opts.maxTabLinks;
    this.log = opts.log;
    this.enabled = opts.enabled;
    /** @type {Map<string, {failures: number, busy: boolean, timer: any}>} */
    this.attempts = new Map();
    this.stopped = false;
    /** @type {any} */
    this.pendingCheck = null;
  }

  /** Look for pairs to upgrade (called on mesh events; coalesced). */
  poke() {
    if (!this.enabled || this.stopped || this.pendingCheck !== null) return;
    this.pendingCheck = setTimeout(() => {
      this.pendingCheck = null;
      this.check();
    }, 0);
  }

  check() {
    if (this.stopped) return;
    const me = this.mesh.id;
    const peers = this.mesh.peers();
    const rtc = new Set(peers.filter((/** @type {any} */ p) => p.links.some((/** @type {any} */ l) => l.transport === 'webrtc')).map((/** @type {any} */ p) => p.id));
    let tabLinks = peers.filter((/** @type {any} */ p) => p.listenUrl === null && rtc.has(p.id)).length;
    for (const p of peers) {
      if (p.listenUrl !== null && !rtc.has(p.id)) this.attempt(p.id, 'daemon');
    }
    const tabs = [
      ...peers.filter((/** @type {any} */ p) => p.listenUrl === null).map((/** @type {any} */ p) => p.id),
      ...this.mesh.routes().filter((/** @type {any} */ r) => r.url === null).map((/** @type {any} */ r) => r.id),
    ];
    for (const id of tabs.sort()) {
      if (rtc.has(id) || id <= me) continue;
      if (tabLinks >= this.maxTabLinks) break;
      if (this.attempt(id, 'tab')) tabLinks++;
    }
  }

  /**
   * @param {string} id @param {string} what
   * @returns {boolean} whether an attempt is running or was started
   */
  attempt(id, what) {
    let a = this.attempts.get(id);
    if (a === undefined) this.attempts.set(id, (a = { failures: 0, busy: false, timer: null }));
    if (a.busy) return true;
    if (a.timer !== null || a.failures > RETRY_MS.length) return false;
    a.busy = true;
    const t0 = performance.now();
    const st = /** @type {{failures: number, busy: boolean, timer: any}} */ (a);
    this.mesh.upgrade(id, 'webrtc', { timeoutMs: 15000 }).then(
      () => {
        st.busy = false;
        st.failures = 0;
        this.log(`WebRTC data channel open with ${what} ${id.slice(0, 12)} (${Math.round(performance.now() - t0)} ms)`);
      },
      (/** @type {any} */ e) => {
        st.busy = false;
        if (this.stopped) return;
        const wait = RETRY_MS[st.failures];
        st.failures++;
        this.log(`WebRTC with ${what} ${id.slice(0, 12)} failed: ${e?.message ?? e}${wait === undefined ? '; staying on the current path' : `; retrying in ${wait} ms`}`);
        if (wait !== undefined) {
          st.timer = setTimeout(() => {
            st.timer = null;
            this.poke();
          }, wait);
        }
      },
    );
    return true;
  }

  /** A peer went away: forget its attempts (a new tab with that id starts afresh). @param {string} id */
  forget(id) {
    const a = this.attempts.get(id);
    if (a && a.timer !== null) clearTimeout(a.timer);
    this.attempts.delete(id);
  }

  stop() {
    this.stopped = true;
    if (this.pendingCheck !== null) clearTimeout(this.pendingCheck);
    for (const a of this.attempts.values()) if (a.timer !== null) clearTimeout(a.timer);
    this.attempts.clear();
  }
}
