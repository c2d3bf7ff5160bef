// @ts-check
/**
 * Textual input that arrives while the program runs (standard input under
 * `termite-node run`), and the input procedures that wait for it: `read-char`,
 * `peek-char`, `read-line`, `read-string`, `read` and `char-ready?`.
 *
 * A host makes the console input port *waitable* with `attachConsoleInput(hooks)` and
 * feeds it with `push(text)` and `end()`. An input operation on a waitable port that
 * needs more text than has arrived leaves the port as it found it and suspends the
 * calling process through the host's `wait()` (which blocks the process, not the
 * event loop); each time text arrives, the waiting operations are tried
 * again in the order they waited, and the first that completes consumes the text. On
 * every other port (strings, files, a console with nothing attached) these procedures
 * behave exactly as before: their sources are synchronous and never wait.
 *
 * Invariants: an operation is all or nothing — a waitable port's buffer only grows
 * while an operation is incomplete, and the position is restored when it must wait;
 * `read` on a waitable port returns a datum only when a delimiter or the end of input
 * follows it (so "12" is not read as 1 while "2" is still on its way); these
 * procedures are builtins (not primitives) because they may suspend the process.
 */
import { Char, EOF, VOID, schemeErrorOf } from '../values.js';
import { defineBuiltin } from '../engine/builtins.js';
import { arity } from '../engine/engine.js';
import { current } from '../engine/current.js';
import { absent, typeError, checkLength } from './prims-errors.js';
import { Port, NO_INPUT_YET, WOULD_BLOCK } from './port.js';
import { readDatum } from './ports.js';
import { consolePorts } from './port-codec.js';

/**
 * The port argument (the current input port when omitted), an open textual input port.
 * @param {string} who @param {any} p @returns {Port}
 */
function textIn(who, p) {
  const port = absent(p) ? current.inputPort() : p;
  if (!(port instanceof Port) || !port.input || port.binary) typeError(who, 'a textual input port', port);
  if (!port.inputOpen) schemeErrorOf('io', who, 'port is closed', port);
  return port;
}

/** @param {number} c a code point or -1 */
const charOrEof = (c) => (c < 0 ? EOF : Char.of(c));

/**
 * What the host does for a process that must wait: `wait()` blocks the running process
 * and returns the value the builtin returns (its unwind) and the function that later
 * resumes it with a value, or raises an error (a Scheme condition) in it.
 * @typedef {{wait: () => [any, (value: any, error: any) => void], needInput?: () => void}} ConsoleInputHost
 */

/** @type {ConsoleInputHost|null} */
let host = null;
/** @type {(() => boolean)[]} operations waiting for text, oldest first */
let waiting = [];

/**
 * Run `op` on a waitable `port`: its result, or — when `op` needs text that has not
 * arrived — the suspension of the process until it can complete.
 * @param {Port} port @param {(port: Port) => any} op
 */
function attempt(port, op) {
  port.compact();
  const start = port.pos;
  try {
    return op(port);
  } catch (e) {
    if (e !== WOULD_BLOCK) throw e;
    port.pos = start;
    port.reader = null;
  }
  if (host === null) return schemeErrorOf('io', 'read', 'no input has arrived and this process cannot wait for it');
  const [suspended, deliver] = host.wait();
  waiting.push(() => {
    port.compact();
    const at = port.pos;
    try {
      deliver(op(port), null);
    } catch (e) {
      if (e !== WOULD_BLOCK) {
        deliver(null, e);
        return true;
      }
      port.pos = at;
      port.reader = null;
      return false;
    }
    return true;
  });
  return suspended;
}

/** Try the waiting operations again, oldest first, until one cannot complete. */
function wakeWaiting() {
  while (waiting.length > 0) {
    if (!waiting[0]()) return;
    waiting.shift();
  }
}

/**
 * Make the console input port waitable and return its feeder: `push(text)` as text
 * arrives, `end()` at the end of input. `needInput` is called the first time a program
 * wants more than has arrived (so a host can start reading only then).
 * @param {ConsoleInputHost} h
 * @returns {{push: (text: string) => void, end: () => void}}
 */
export function attachConsoleInput(h) {
  const port = /** @type {Port} */ (consolePorts.get('rt:stdin'));
  /** @type {string[]} */
  const chunks = [];
  let ended = false;
  let asked = false;
  port.waitable = true;
  port.source = () => {
    if (chunks.length > 0) return /** @type {string} */ (chunks.shift());
    if (ended) return null;
    if (!asked && h.needInput) {
      asked = true;
      h.needInput();
    }
    return NO_INPUT_YET;
  };
  waiting = [];
  host = h;
  return {
    push: (text) => {
      if (text.length === 0 || ended) return;
      chunks.push(text);
      wakeWaiting();
    },
    end: () => {
      ended = true;
      wakeWaiting();
    },
  };
}

/**
 * Define an input procedure of at most two arguments, the port being the last: `op(port,
 * k)` (k: read-string's count). Fixed parameters, no rest array: read-char loops are hot.
 * @param {string} name @param {number} min 0 or 1 @param {(port: Port, k: any) => any} op
 */
function defineInput(name, min, op) {
  defineBuiltin(
    name,
    /** @this {any} */ function (/** @type {number} */ _d, /** @type {any} */ a, /** @type {any} */ b) {
      const n = arguments.length - 1;
      if (n < min || n > min + 1) return arity(this, n);
      const port = textIn(name, min === 0 ? a : b);
      if (!port.waitable) return op(port, a);
      return attempt(port, (p) => op(p, a));
    },
    min,
    1,
  );
}

// read-char and peek-char, the hot ones, have code of their own (a shared function
// would see every input procedure's `op` and call it polymorphically)
/** @param {Port} port */
const readCharOp = (port) => charOrEof(port.readCodePoint());
/** @param {Port} port */
const peekCharOp = (port) => charOrEof(port.peekCodePoint());
defineBuiltin(
  'read-char',
  /** @this {any} */ function (/** @type {number} */ _d, /** @type {any} */ p) {
    if (arguments.length > 2) return arity(this, arguments.length - 1);
    const port = textIn('read-char', p);
    return port.waitable ? attempt(port, readCharOp) : charOrEof(port.readCodePoint());
  },
  0,
  1,
);
defineBuiltin(
  'peek-char',
  /** @this {any} */ function (/** @type {number} */ _d, /** @type {any} */ p) {
    if (arguments.length > 2) return arity(this, arguments.length - 1);
    const port = textIn('peek-char', p);
    return port.waitable ? attempt(port, peekCharOp) : charOrEof(port.peekCodePoint());
  },
  0,
  1,
);
defineInput('read-line', 0, (port) => port.readLine());
defineInput('read-string', 1, (port, k) => port.readString(checkLength('read-string', k)));
defineInput('read', 0, (port) => readDatum(port));
defineInput('char-ready?', 0, (port) => (port.waitable ? port.fillAvailable() : true));

/** Detach the host: the console input port is empty again and nothing waits. */
export function detachConsoleInput() {
  host = null;
  waiting = [];
  const port = /** @type {Port} */ (consolePorts.get('rt:stdin'));
  port.waitable = false;
  port.source = null;
  return VOID;
}
