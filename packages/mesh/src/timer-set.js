// @ts-check
/**
 * TimerSet: the one-shot timers a mesh node's mechanisms arm (a duplicate link's
 * grace period, a path switch's deadline), kept together so that stop() clears
 * every one of them.
 *
 * Invariant: a timer is in the set from after() until it fires, is cancelled or
 * clear() runs; nothing armed here fires after clear().
 */

export class TimerSet {
  /** @type {Set<ReturnType<typeof setTimeout>>} */
  #timers = new Set();

  /**
   * Run `fn` after `ms`, unless cancelled or cleared first.
   * @param {() => void} fn @param {number} ms
   */
  after(fn, ms) {
    const t = setTimeout(() => {
      this.#timers.delete(t);
      fn();
    }, ms);
    this.#timers.add(t);
    return t;
  }

  /** @param {ReturnType<typeof setTimeout>} t */
  cancel(t) {
    clearTimeout(t);
    this.#timers.delete(t);
  }

  clear() {
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
  }
}
