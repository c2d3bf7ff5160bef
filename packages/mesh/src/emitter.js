// @ts-check
/**
 * A small synchronous event emitter that behaves the same in Node and
 * browsers. Handlers run in registration order; a handler that throws does
 * not stop the others nor the emitter's caller: the error goes to `onError`
 * (the mesh node logs it). Registering returns an unsubscribe function.
 *
 * @template {Record<string, any>} Events map of event name to detail type
 */
export class Emitter {
  /** @type {Map<keyof Events, Array<(detail: any) => void>>} */
  #handlers = new Map();

  /** @param {(error: unknown, event: string) => void} [onError] */
  constructor(onError) {
    this.onError = onError ?? ((e) => { queueMicrotask(() => { throw e; }); });
  }

  /**
   * @template {keyof Events} K
   * @param {K} event @param {(detail: Events[K]) => void} handler
   * @returns {() => void} unsubscribe
   */
  on(event, handler) {
    const list = this.#handlers.get(event);
    if (list) list.push(handler);
    else this.#handlers.set(event, [handler]);
    return () => this.off(event, handler);
  }

  /**
   * @template {keyof Events} K
   * @param {K} event @param {(detail: Events[K]) => void} handler
   */
  off(event, handler) {
    const list = this.#handlers.get(event);
    if (!list) return;
    const i = list.indexOf(handler);
    if (i >= 0) list.splice(i, 1);
  }

  /**
   * @template {keyof Events} K
   * @param {K} event @param {(detail: Events[K]) => void} handler
   * @returns {() => void} unsubscribe
   */
  once(event, handler) {
    const off = this.on(event, (d) => {
      off();
      handler(d);
    });
    return off;
  }

  /**
   * @template {keyof Events} K
   * @param {K} event @param {Events[K]} detail
   */
  emit(event, detail) {
    const list = this.#handlers.get(event);
    if (!list || list.length === 0) return;
    for (const h of list.length === 1 ? list : [...list]) {
      try {
        h(detail);
      } catch (e) {
        this.onError(e, String(event));
      }
    }
  }

  /** @param {keyof Events} event */
  listenerCount(event) {
    return this.#handlers.get(event)?.length ?? 0;
  }
}
