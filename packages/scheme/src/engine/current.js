// @ts-check
/**
 * Access to the dynamic state of the running Scheme computation for primitives that
 * need it (the default ports of `display`, `read-char`, ...). The driver installs the
 * real implementation when it starts running a process; until then the defaults below
 * are used (console ports supplied by the host).
 *
 * Primitives must call these functions, never cache their results: the current
 * output port is a parameter and differs between processes.
 */
export const current = {
  /** @type {() => any} */
  outputPort: () => {
    throw new Error('current.outputPort: no Scheme runtime is running');
  },
  /** @type {() => any} */
  inputPort: () => {
    throw new Error('current.inputPort: no Scheme runtime is running');
  },
  /** @type {() => any} */
  errorPort: () => {
    throw new Error('current.errorPort: no Scheme runtime is running');
  },
};
