// @ts-check
/**
 * Named errors, one class per condition (the js-libp2p convention): code
 * branches on `err.name`, and the same names go to peers in error frames.
 * Errors raised by the core carry its precise message (which field, which
 * byte, what was expected) and its status code.
 */
import { Status } from './layout.js';

/** Base class of every error this package throws. */
export class TermiteCoreError extends Error {
  /**
   * @param {string} message
   * @param {number} [status] the core's tm_status, if it came from the core
   */
  constructor(message, status = 0) {
    super(message);
    this.name = 'TermiteCoreError';
    /** The core's tm_status (0 for errors raised in JavaScript). */
    this.status = status;
  }
}

/** Bytes that are not well-formed CBOR (truncated, bad UTF-8, ...). */
export class MalformedCborError extends TermiteCoreError {
  /** @param {string} m @param {number} [s] */
  constructor(m, s = Status.E_MALFORMED) { super(m, s); this.name = 'MalformedCborError'; }
}
/** A depth, length or count limit was exceeded. */
export class LimitError extends TermiteCoreError {
  /** @param {string} m @param {number} [s] */
  constructor(m, s = Status.E_LIMIT) { super(m, s); this.name = 'LimitError'; }
}
/** A tuple or template of the wrong shape (not an array, formal in a tuple). */
export class TemplateError extends TermiteCoreError {
  /** @param {string} m @param {number} [s] */
  constructor(m, s = Status.E_TEMPLATE) { super(m, s); this.name = 'TemplateError'; }
}
/** A formal (tag 40992) with an unknown type code. */
export class UnknownFormalError extends TermiteCoreError {
  /** @param {string} m @param {number} [s] */
  constructor(m, s = Status.E_UNKNOWN_FORMAL) { super(m, s); this.name = 'UnknownFormalError'; }
}
/** A space id that names no live space. */
export class NoSuchSpaceError extends TermiteCoreError {
  /** @param {string} m @param {number} [s] */
  constructor(m, s = Status.E_NO_SPACE) { super(m, s); this.name = 'NoSuchSpaceError'; }
}
/** A pid that names no live process. */
export class NoSuchProcessError extends TermiteCoreError {
  /** @param {string} m @param {number} [s] */
  constructor(m, s = Status.E_NO_PROCESS) { super(m, s); this.name = 'NoSuchProcessError'; }
}
/** A scheduler transition not allowed from the process's state. */
export class InvalidTransitionError extends TermiteCoreError {
  /** @param {string} m @param {number} [s] */
  constructor(m, s = Status.E_TRANSITION) { super(m, s); this.name = 'InvalidTransitionError'; }
}
/** The core's memory limit (or the wasm memory) is exhausted. */
export class OutOfMemoryError extends TermiteCoreError {
  /** @param {string} m @param {number} [s] */
  constructor(m, s = Status.E_NOMEM) { super(m, s); this.name = 'OutOfMemoryError'; }
}
/** A timer id that names no pending timer. */
export class NoSuchTimerError extends TermiteCoreError {
  /** @param {string} m @param {number} [s] */
  constructor(m, s = Status.E_NO_TIMER) { super(m, s); this.name = 'NoSuchTimerError'; }
}
/** A bad argument (clock id, priority, NaN time, handle range). */
export class InvalidArgumentError extends TermiteCoreError {
  /** @param {string} m @param {number} [s] */
  constructor(m, s = Status.E_ARG) { super(m, s); this.name = 'InvalidArgumentError'; }
}
/** A consistency check failed: a bug in the core, never caused by input. */
export class CorruptionError extends TermiteCoreError {
  /** @param {string} m @param {number} [s] */
  constructor(m, s = Status.E_CORRUPT) { super(m, s); this.name = 'CorruptionError'; }
}
/** A JavaScript value that has no CBOR form here (function, cycle, ...). */
export class EncodeError extends TermiteCoreError {
  /** @param {string} m */
  constructor(m) { super(m, 0); this.name = 'EncodeError'; }
}
/** The core was destroyed; no further calls are possible. */
export class CoreDestroyedError extends TermiteCoreError {
  /** @param {string} m */
  constructor(m) { super(m, 0); this.name = 'CoreDestroyedError'; }
}

/** @type {Record<number, new (m: string) => TermiteCoreError>} */
const byStatus = {
  [Status.E_MALFORMED]: MalformedCborError,
  [Status.E_LIMIT]: LimitError,
  [Status.E_TEMPLATE]: TemplateError,
  [Status.E_UNKNOWN_FORMAL]: UnknownFormalError,
  [Status.E_NO_SPACE]: NoSuchSpaceError,
  [Status.E_NO_PROCESS]: NoSuchProcessError,
  [Status.E_TRANSITION]: InvalidTransitionError,
  [Status.E_NOMEM]: OutOfMemoryError,
  [Status.E_NO_TIMER]: NoSuchTimerError,
  [Status.E_ARG]: InvalidArgumentError,
  [Status.E_CORRUPT]: CorruptionError,
};

/**
 * The error for a negative tm_status with the core's message.
 * @param {number} status
 * @param {string} message
 * @returns {TermiteCoreError}
 */
export function errorFor(status, message) {
  const Cls = byStatus[status];
  return Cls ? new Cls(message) : new TermiteCoreError(message || `core status ${status}`, status);
}
