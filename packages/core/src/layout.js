// @ts-check
/**
 * Constants mirrored from wasm-core/include/termite_core.h. The transfer
 * area offsets are checked against the C declaration (tm_xfer_layout) by
 * test/layout.test.js; the status codes and enums by the same test through
 * tm_status_name and behaviour.
 */

/** Byte offsets inside struct tm_xfer (wasm32: pointers and size_t are 4 bytes). */
export const XFER = Object.freeze({
  MAGIC: 0,
  CAP: 4,
  DATA: 8,
  RESULT_BYTES: 12,
  RESULT_LEN: 16,
  U32: 20,
  F64: 40,
  REASON: 56,
  KEEP: 64,
  SIZE: 320,
});

/** Field numbers understood by tm_xfer_layout(), in XFER's order. */
export const XFER_FIELDS = Object.freeze(['MAGIC', 'CAP', 'DATA', 'RESULT_BYTES', 'RESULT_LEN', 'U32', 'F64', 'REASON', 'KEEP', 'SIZE']);

/** TM_XFER_MAGIC: "TMX" + layout version 2. */
export const XFER_MAGIC = 0x544d5802;

/** TM_XFER_KEEP: bytes of the area's `keep` field. */
export const XFER_KEEP = 256;

/** tm_status values. */
export const Status = Object.freeze({
  OK: 0,
  NOMATCH: 1,
  BLOCKED: 2,
  E_MALFORMED: -1,
  E_LIMIT: -2,
  E_TEMPLATE: -3,
  E_UNKNOWN_FORMAL: -4,
  E_NO_SPACE: -5,
  E_NO_PROCESS: -6,
  E_TRANSITION: -7,
  E_NOMEM: -8,
  E_NO_TIMER: -9,
  E_ARG: -10,
  E_CORRUPT: -11,
});

/** CBOR tags shared with docs/wire-format.md. */
export const TAG_SYMBOL = 40960;
export const TAG_FORMAL = 40992;

/** Formal type codes (content of tag 40992). */
export const FormalCode = Object.freeze({
  any: 0, integer: 1, number: 2, float: 3, string: 4, symbol: 5,
  bytes: 6, boolean: 7, array: 8, map: 9, null: 10, tagged: 11,
});

/** Process states, indexed by TM_PROC_*. */
export const STATES = Object.freeze(['free', 'ready', 'running', 'waiting-message', 'waiting-tuple', 'waiting-timer', 'exited']);

/** Wake reasons, indexed by TM_WAKE_*. */
export const REASONS = Object.freeze(['none', 'spawn', 'yield', 'message', 'tuple', 'timeout', 'interrupt']);

export const PRIORITIES = 4;
export const PRIORITY_DEFAULT = 2;
export const CLOCKS = 4;
export const HANDLE_MAX = 0x7fffffff;
export const MAX_ARITY = 4096;
export const MAX_DEPTH = 1024;
