// @ts-check
/**
 * The Port object of R7RS §6.13: textual or binary, input or output (or both), open or
 * closed on each side. The primitives that use ports are ports.js; how ports travel
 * between nodes is port-codec.js.
 *
 * Where a port's data comes from and goes to is given at construction, so the same class
 * serves string and bytevector ports, file ports, console ports whose output goes to a
 * sink function (the driver's stdout/stderr), and ports other packages make (a port
 * whose writes become messages to a process):
 *
 *  - input: an initial buffer (`text` or `bytes`) and an optional `source` function pulled
 *    synchronously when the buffer runs out (it returns more, or null at end of input);
 *  - output: without a `sink`, output accumulates (get-output-string / -bytevector); with a
 *    sink, output is handed to it as strings (textual) or Uint8Arrays (binary) according
 *    to `buffering`: 'none' (every write), 'line' (writes containing a newline, or 4 KiB),
 *    'block' (8 KiB). `flush()` and `close()` hand over the rest, so whoever creates a
 *    buffered port must flush it before the process ends.
 *
 * Invariants: positions in textual input are UTF-16 offsets internally, but characters
 * are whole code points (a surrogate pair split across two source chunks is joined before
 * it is returned); `reader` is valid only while `readerEnd === pos`; onClose runs once,
 * when both sides are closed.
 */
import { EOF } from '../values.js';
import * as printer from '../printer.js';
import { checkStringSize } from './prims-errors.js';

/**
 * @typedef {object} PortOptions
 * @property {string} kind  what the port is, printed as #<port KIND>: 'string-input',
 *   'string-output', 'bytevector-input', 'bytevector-output', 'file-input', 'file-output',
 *   'console', ...
 * @property {boolean} [input]   reads are allowed (default false)
 * @property {boolean} [output]  writes are allowed (default false)
 * @property {boolean} [binary]  bytes rather than characters (default false)
 * @property {string} [text]     initial content of a textual input port
 * @property {Uint8Array} [bytes] initial content of a binary input port (not copied)
 * @property {(() => string|Uint8Array|null)|null} [source]  more input when the buffer is
 *   exhausted: a string (textual) or Uint8Array (binary); null or empty at end of input
 * @property {((chunk: any) => void)|null} [sink]  receives the output: strings from a
 *   textual port, Uint8Arrays from a binary one. Without a sink, output accumulates.
 * @property {'none'|'line'|'block'} [buffering]  when output goes to the sink (default 'none')
 * @property {(() => void)|null} [onClose]  called once, when the port is closed
 * @property {string|null} [name]  the file name, for messages and the reader's locations
 */

/** What a waitable port's source returns when more input may come but has not yet. */
export const NO_INPUT_YET = Symbol('no input yet');
/** Thrown by a waitable port's reads that need input not yet arrived (console-input.js). */
export const WOULD_BLOCK = Object.freeze({ wouldBlock: true });

const EMPTY_BYTES = new Uint8Array(0);
const LINE_LIMIT = 4096;
const BLOCK_LIMIT = 8192;

/** An input or output port. */
export class Port {
  /** @param {PortOptions} opts */
  constructor(opts) {
    /** @type {string} */
    this.kind = opts.kind;
    this.input = opts.input ?? false;
    this.output = opts.output ?? false;
    this.binary = opts.binary ?? false;
    this.inputOpen = this.input;
    this.outputOpen = this.output;
    /** @type {string|null} */
    this.name = opts.name ?? null;
    // Input: the buffer, the read position in it, and where more comes from.
    this.text = opts.text ?? '';
    this.bytes = opts.bytes ?? EMPTY_BYTES;
    this.pos = 0;
    /** @type {(() => any)|null} */
    this.source = opts.source ?? null;
    // A waitable port's source may answer NO_INPUT_YET (console-input.js): its buffer
    // then only grows, so that an operation that must wait can be undone by resetting pos.
    this.waitable = false;
    // The Reader used by `read`, valid while nothing else moved `pos` (see readDatum).
    /** @type {any} */
    this.reader = null;
    this.readerEnd = -1;
    // Output: accumulated or pending text / bytes.
    /** @type {((chunk: any) => void)|null} */
    this.sink = opts.sink ?? null;
    this.buffering = opts.buffering ?? 'none';
    this.out = '';
    this.outBytes = EMPTY_BYTES;
    this.outLength = 0;
    /** @type {(() => void)|null} */
    this.onClose = opts.onClose ?? null;
  }

  /** A textual input port reading `text`. @param {string} text */
  static fromString(text) {
    return new Port({ kind: 'string-input', input: true, text });
  }

  /** A textual output port that accumulates (get-output-string). */
  static stringOutput() {
    return new Port({ kind: 'string-output', output: true });
  }

  /** A binary input port reading `bytes` (not copied). @param {Uint8Array} bytes */
  static fromBytes(bytes) {
    return new Port({ kind: 'bytevector-input', input: true, binary: true, bytes });
  }

  /** A binary output port that accumulates (get-output-bytevector). */
  static bytesOutput() {
    return new Port({ kind: 'bytevector-output', output: true, binary: true });
  }

  /**
   * A console output port: what is written goes to `sink` (strings, or Uint8Arrays when
   * `binary`), line-buffered by default. The driver creates these for stdout and stderr.
   * @param {(chunk: any) => void} sink
   * @param {{binary?: boolean, buffering?: 'none'|'line'|'block', kind?: string}} [opts]
   */
  static console(sink, opts = {}) {
    return new Port({
      kind: opts.kind ?? 'console',
      output: true,
      binary: opts.binary ?? false,
      sink,
      buffering: opts.buffering ?? 'line',
    });
  }

  /** Whether output accumulates here rather than going to a sink. */
  get accumulates() {
    return this.output && this.sink === null;
  }

  // --- textual input -------------------------------------------------------------------

  /**
   * Pull from the source until at least `n` UTF-16 units are buffered past `pos`, or the
   * input ends. Returns the number buffered.
   * @param {number} n
   */
  fillText(n) {
    while (this.text.length - this.pos < n && this.source !== null) {
      const more = this.source();
      if (more === NO_INPUT_YET) throw WOULD_BLOCK;
      if (more === null || more.length === 0) {
        this.source = null;
        break;
      }
      if (this.waitable) {
        this.text += more;
      } else {
        this.text = this.text.slice(this.pos) + more;
        this.pos = 0;
      }
      this.reader = null;
    }
    return this.text.length - this.pos;
  }

  /** A waitable port, between operations: drop the text already read. */
  compact() {
    if (this.pos > 0) {
      this.text = this.text.slice(this.pos);
      this.pos = 0;
      this.reader = null;
    }
  }

  /**
   * A waitable port: take what has arrived; whether a read would now complete without
   * waiting (text is buffered, or the input ended).
   */
  fillAvailable() {
    try {
      this.fillText(Infinity);
    } catch (e) {
      if (e !== WOULD_BLOCK) throw e;
    }
    return this.text.length > this.pos || this.source === null;
  }

  /** The next code point without consuming it, or -1 at end of input. */
  peekCodePoint() {
    if (this.fillText(1) === 0) return -1;
    const u = this.text.charCodeAt(this.pos);
    if (u >= 0xd800 && u <= 0xdbff && this.fillText(2) >= 2) return /** @type {number} */ (this.text.codePointAt(this.pos));
    return u;
  }

  /** The next code point, or -1 at end of input. */
  readCodePoint() {
    const c = this.peekCodePoint();
    if (c >= 0) this.pos += c > 0xffff ? 2 : 1;
    return c;
  }

  /** The next line without its terminator (\n, \r\n or \r), or EOF. */
  readLine() {
    if (this.fillText(1) === 0) return EOF;
    let line = '';
    const eol = /[\r\n]/g;
    for (;;) {
      eol.lastIndex = this.pos;
      const m = eol.exec(this.text);
      if (m !== null) {
        line += this.text.slice(this.pos, m.index);
        this.pos = m.index + 1;
        if (m[0] === '\r' && this.fillText(1) > 0 && this.text.charCodeAt(this.pos) === 10) this.pos++;
        return line;
      }
      line += this.text.slice(this.pos);
      this.pos = this.text.length;
      if (this.fillText(1) === 0) return line;
    }
  }

  /** Up to `k` characters as a string, or EOF when none is left. @param {number} k */
  readString(k) {
    if (k === 0) return '';
    if (this.fillText(1) === 0) return EOF;
    let s = '';
    let n = 0;
    while (n < k && this.fillText(1) > 0) {
      const t = this.text;
      let i = this.pos;
      let split = false;
      while (n < k && i < t.length) {
        const u = t.charCodeAt(i);
        if (u >= 0xd800 && u <= 0xdbff) {
          if (i + 1 === t.length) {
            split = true;
            break;
          }
          i++;
        }
        i++;
        n++;
      }
      s += t.slice(this.pos, i);
      this.pos = i;
      if (split) {
        // A high surrogate ends the buffer: readCodePoint pulls its low half first.
        s += String.fromCodePoint(this.readCodePoint());
        n++;
      }
    }
    return s;
  }

  /** Make the whole rest of the input available in `text` (for `read`). */
  fillAll() {
    while (this.source !== null) this.fillText(this.text.length - this.pos + 1);
  }

  // --- binary input --------------------------------------------------------------------

  /** @param {number} n */
  fillBytes(n) {
    while (this.bytes.length - this.pos < n && this.source !== null) {
      const more = this.source();
      if (more === null || more.length === 0) {
        this.source = null;
        break;
      }
      const rest = this.bytes.length - this.pos;
      const b = new Uint8Array(rest + more.length);
      b.set(this.bytes.subarray(this.pos), 0);
      b.set(more, rest);
      this.bytes = b;
      this.pos = 0;
    }
    return this.bytes.length - this.pos;
  }

  /** The next byte without consuming it, or -1 at end of input. */
  peekByte() {
    return this.fillBytes(1) === 0 ? -1 : this.bytes[this.pos];
  }

  /** Up to `k` bytes, fewer only at end of input. @param {number} k */
  readBytes(k) {
    this.fillBytes(k);
    const n = Math.min(k, this.bytes.length - this.pos);
    const b = this.bytes.slice(this.pos, this.pos + n);
    this.pos += n;
    return b;
  }

  // --- output --------------------------------------------------------------------------

  /** @param {string} s */
  writeText(s) {
    // an accumulating port's text is one string, read in one call: it is kept to the
    // per-call string limit (the write past it is refused, and nothing of it written)
    if (this.sink === null) checkStringSize('write', this.out.length + s.length);
    this.out += s;
    if (this.sink === null) return;
    const b = this.buffering;
    if (b === 'none' || this.out.length >= (b === 'line' ? LINE_LIMIT : BLOCK_LIMIT) || (b === 'line' && s.includes('\n'))) this.flush();
  }

  /** @param {Uint8Array} bytes */
  writeBytes(bytes) {
    const need = this.outLength + bytes.length;
    if (need > this.outBytes.length) {
      const grown = new Uint8Array(Math.max(need, 2 * this.outBytes.length, 64));
      grown.set(this.outBytes.subarray(0, this.outLength));
      this.outBytes = grown;
    }
    this.outBytes.set(bytes, this.outLength);
    this.outLength = need;
    if (this.sink !== null && (this.buffering === 'none' || this.outLength >= BLOCK_LIMIT)) this.flush();
  }

  /** Everything written so far (accumulating textual port). */
  outputString() {
    return this.out;
  }

  /** A copy of everything written so far (accumulating binary port). */
  outputBytes() {
    return this.outBytes.slice(0, this.outLength);
  }

  /** Hand pending output to the sink (no-op for accumulating ports). */
  flush() {
    if (this.sink === null) return;
    if (this.binary) {
      if (this.outLength === 0) return;
      const chunk = this.outBytes.slice(0, this.outLength);
      this.outLength = 0;
      this.sink(chunk);
    } else {
      if (this.out.length === 0) return;
      const chunk = this.out;
      this.out = '';
      this.sink(chunk);
    }
  }

  // --- closing -------------------------------------------------------------------------

  closeInput() {
    if (!this.inputOpen) return;
    this.inputOpen = false;
    this.text = '';
    this.bytes = EMPTY_BYTES;
    this.source = null;
    this.reader = null;
    this.finish();
  }

  closeOutput() {
    if (!this.outputOpen) return;
    this.flush();
    this.outputOpen = false;
    this.finish();
  }

  close() {
    this.closeInput();
    this.closeOutput();
  }

  /** Run onClose once both sides are closed. */
  finish() {
    if (this.inputOpen || this.outputOpen || this.onClose === null) return;
    const f = this.onClose;
    this.onClose = null;
    f();
  }
}

if (typeof (/** @type {any} */ (printer).registerPrinter) === 'function') {
  /** @type {any} */ (printer).registerPrinter(Port, (/** @type {Port} */ p) => `#<port ${p.kind}>`);
}
