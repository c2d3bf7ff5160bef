// @ts-check
/**
 * `soon(f)`: run f after the current task, before timers — how the scheduler gives the
 * event loop a turn between runs. Node has setImmediate; browsers and workers use a
 * MessageChannel (setTimeout(0) would be clamped to 4 ms when nested).
 */
/** @type {(f: () => void) => void} */
export const soon = typeof setImmediate === 'function'
  ? (f) => void setImmediate(f)
  : (() => {
      const channel = new MessageChannel();
      /** @type {(() => void)[]} */
      const queue = [];
      channel.port1.onmessage = () => {
        const f = queue.shift();
        if (f) f();
      };
      return (/** @type {() => void} */ f) => {
        queue.push(f);
        channel.port2.postMessage(0);
      };
    })();
