// @ts-check
/**
 * R7RS §6.13 input and output: the `Port` class and the I/O primitives; and §6.14 the
 * system interface (command line, environment, clocks, features), through host.js.
 *
 * A Port is textual or binary, input or output (or both), and open or closed on each side.
 * Where its data comes from and goes to is given at construction, so the same class serves
 * string and bytevector ports, file ports, console ports whose output goes to a sink
 * function (the driver's stdout/stderr), and later a port whose writes become messages to
 * a node's stdout process:
 *
 *  - input: an initial buffer (`text` or `bytes`) and an optional `source` function pulled
 *    synchronously when the buffer runs out (it returns more, or null at end of input);
 *  - output: without a `sink`, output accumulates (get-output-string / -bytevector); with a
 *    sink, output is handed to it as strings (textual) or Uint8Arrays (binary) according
 *    to `buffering`: 'none' (every write), 'line' (writes containing a newline, or 4 KiB),
 *    'block' (8 KiB). `flush()` and `close()` hand over the rest, so whoever creates a
 *    buffered port must flush it before the process ends.
 *
 * Primitives whose port argument is optional use current.outputPort() / current.inputPort()
 * at call time (current.js), never a cached port. Positions in textual input are UTF-16
 * offsets internally; characters are whole code points (a surrogate pair split across two
 * source chunks is joined before it is returned).
 */
import { Char, EOF, Flonum, Pair, Sym, VOID, arrayToList, schemeErrorOf } from '../values.js';
import { Reader } from '../reader.js';
import * as printer from '../printer.js';
import { definePrimitive } from '../engine/registry.js';
import { current } from '../engine/current.js';
import { absent, typeError, checkRange, checkLength } from './prims-errors.js';
import { checkString, unitRange } from './prims-strings.js';
import { checkByte, checkMutableBytevector } from './prims-vectors.js';
import * as host from '../engine/host.js';
import { BASE_FEATURES } from '../expand/stdlib.js';

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
      if (more === null || more.length === 0) {
        this.source = null;
        break;
      }
      this.text = this.text.slice(this.pos) + more;
      this.pos = 0;
      this.reader = null;
    }
    return this.text.length - this.pos;
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

// ---------------------------------------------------------------------------------------
// Port arguments.

/**
 * The port argument of an input primitive (the current input port when omitted), checked
 * to be an open input port of the right kind.
 * @param {string} who @param {any} p @param {boolean} binary
 * @returns {Port}
 */
function inPort(who, p, binary) {
  const port = absent(p) ? current.inputPort() : p;
  if (!(port instanceof Port) || !port.input || port.binary !== binary) typeError(who, binary ? 'a binary input port' : 'a textual input port', port);
  if (!port.inputOpen) schemeErrorOf('io', who, 'port is closed', port);
  return port;
}

/**
 * The port argument of an output primitive (the current output port when omitted).
 * @param {string} who @param {any} p @param {boolean} binary
 * @returns {Port}
 */
function outPort(who, p, binary) {
  const port = absent(p) ? current.outputPort() : p;
  if (!(port instanceof Port) || !port.output || port.binary !== binary) typeError(who, binary ? 'a binary output port' : 'a textual output port', port);
  if (!port.outputOpen) schemeErrorOf('io', who, 'port is closed', port);
  return port;
}

/** @param {string} who @param {any} p @returns {Port} */
function anyPort(who, p) {
  if (p instanceof Port) return p;
  return typeError(who, 'a port', p);
}

// ---------------------------------------------------------------------------------------
// Port predicates, opening and closing.

definePrimitive('port?', 1, 1, (/** @type {any} */ x) => x instanceof Port, { pure: true });
definePrimitive('input-port?', 1, 1, (/** @type {any} */ x) => x instanceof Port && x.input, { pure: true });
definePrimitive('output-port?', 1, 1, (/** @type {any} */ x) => x instanceof Port && x.output, { pure: true });
definePrimitive('textual-port?', 1, 1, (/** @type {any} */ x) => x instanceof Port && !x.binary, { pure: true });
definePrimitive('binary-port?', 1, 1, (/** @type {any} */ x) => x instanceof Port && x.binary, { pure: true });
definePrimitive('input-port-open?', 1, 1, (/** @type {any} */ p) => anyPort('input-port-open?', p).inputOpen);
definePrimitive('output-port-open?', 1, 1, (/** @type {any} */ p) => anyPort('output-port-open?', p).outputOpen);

definePrimitive('close-port', 1, 1, (/** @type {any} */ p) => {
  anyPort('close-port', p).close();
  return VOID;
});
definePrimitive('close-input-port', 1, 1, (/** @type {any} */ p) => {
  const port = anyPort('close-input-port', p);
  if (!port.input) typeError('close-input-port', 'an input port', p);
  port.closeInput();
  return VOID;
});
definePrimitive('close-output-port', 1, 1, (/** @type {any} */ p) => {
  const port = anyPort('close-output-port', p);
  if (!port.output) typeError('close-output-port', 'an output port', p);
  port.closeOutput();
  return VOID;
});

definePrimitive('open-input-string', 1, 1, (/** @type {any} */ s) => Port.fromString(checkString('open-input-string', s)));
definePrimitive('open-output-string', 0, 0, () => Port.stringOutput());
definePrimitive('get-output-string', 1, 1, (/** @type {any} */ p) => {
  if (!(p instanceof Port) || !p.accumulates || p.binary) typeError('get-output-string', 'a port made by open-output-string', p);
  return p.outputString();
});
definePrimitive('open-input-bytevector', 1, 1, (/** @type {any} */ b) => {
  if (!(b instanceof Uint8Array)) typeError('open-input-bytevector', 'a bytevector', b);
  return Port.fromBytes(b.slice());
});
definePrimitive('open-output-bytevector', 0, 0, () => Port.bytesOutput());
definePrimitive('get-output-bytevector', 1, 1, (/** @type {any} */ p) => {
  if (!(p instanceof Port) || !p.accumulates || !p.binary) typeError('get-output-bytevector', 'a port made by open-output-bytevector', p);
  return p.outputBytes();
});

// ---------------------------------------------------------------------------------------
// Input.

/** @param {number} c a code point or -1 */
const charOrEof = (c) => (c < 0 ? EOF : Char.of(c));

definePrimitive('read-char', 0, 1, (/** @type {any} */ p) => charOrEof(inPort('read-char', p, false).readCodePoint()));
definePrimitive('peek-char', 0, 1, (/** @type {any} */ p) => charOrEof(inPort('peek-char', p, false).peekCodePoint()));
definePrimitive('read-line', 0, 1, (/** @type {any} */ p) => inPort('read-line', p, false).readLine());
definePrimitive('char-ready?', 0, 1, (/** @type {any} */ p) => {
  inPort('char-ready?', p, false);
  return true; // sources are synchronous: a read never waits
});
definePrimitive('read-string', 1, 2, (/** @type {any} */ k, /** @type {any} */ p) => {
  const n = checkLength('read-string', k);
  return inPort('read-string', p, false).readString(n);
});
definePrimitive('eof-object', 0, 0, () => EOF, { pure: true });
definePrimitive('eof-object?', 1, 1, (/** @type {any} */ x) => x === EOF, { pure: true });

definePrimitive('read-u8', 0, 1, (/** @type {any} */ p) => {
  const port = inPort('read-u8', p, true);
  const b = port.peekByte();
  if (b < 0) return EOF;
  port.pos++;
  return b;
});
definePrimitive('peek-u8', 0, 1, (/** @type {any} */ p) => {
  const b = inPort('peek-u8', p, true).peekByte();
  return b < 0 ? EOF : b;
});
definePrimitive('u8-ready?', 0, 1, (/** @type {any} */ p) => {
  inPort('u8-ready?', p, true);
  return true;
});
definePrimitive('read-bytevector', 1, 2, (/** @type {any} */ k, /** @type {any} */ p) => {
  const n = checkLength('read-bytevector', k);
  const port = inPort('read-bytevector', p, true);
  if (n === 0) return new Uint8Array(0);
  const b = port.readBytes(n);
  return b.length === 0 ? EOF : b;
});
definePrimitive('read-bytevector!', 1, 4, (/** @type {any} */ bv, /** @type {any} */ p, /** @type {any} */ start, /** @type {any} */ end) => {
  checkMutableBytevector('read-bytevector!', bv);
  const port = inPort('read-bytevector!', p, true);
  const [s, e] = checkRange('read-bytevector!', start, end, bv.length);
  if (s === e) return 0;
  const b = port.readBytes(e - s);
  if (b.length === 0) return EOF;
  bv.set(b, s);
  return b.length;
});

/**
 * `read`: parse the next datum from the port's remaining text with reader.js. The Reader
 * runs over the port's whole buffer from the port's position (so its error locations are
 * lines and columns of the file), and is kept on the port and reused by the next `read`
 * as long as no other operation has moved the position, so reading a file datum by datum
 * is linear. A read error is the Reader's SchemeError (kind 'read'), passed through.
 * @param {Port} port
 */
function readDatum(port) {
  port.fillAll();
  if (port.reader === null || port.readerEnd !== port.pos) {
    port.reader = new Reader(port.text, port.name === null ? { locations: false } : { file: port.name, locations: false });
    // The Reader starts at 0 (skipping a byte order mark or a "#!/..." line there);
    // later reads start where the port is. Reader#pos is its public cursor.
    if (port.pos > 0) port.reader.pos = port.pos;
  }
  let datum;
  try {
    datum = port.reader.read();
  } catch (e) {
    port.reader = null;
    throw e;
  }
  port.pos = port.reader.offset;
  port.readerEnd = port.pos;
  return datum;
}

definePrimitive('read', 0, 1, (/** @type {any} */ p) => readDatum(inPort('read', p, false)));

// ---------------------------------------------------------------------------------------
// Output.

definePrimitive('write-char', 1, 2, (/** @type {any} */ c, /** @type {any} */ p) => {
  if (!(c instanceof Char)) typeError('write-char', 'a character', c);
  outPort('write-char', p, false).writeText(String.fromCodePoint(c.code));
  return VOID;
});
definePrimitive('newline', 0, 1, (/** @type {any} */ p) => {
  outPort('newline', p, false).writeText('\n');
  return VOID;
});
definePrimitive('write-string', 1, 4, (/** @type {any} */ s, /** @type {any} */ p, /** @type {any} */ start, /** @type {any} */ end) => {
  checkString('write-string', s);
  const port = outPort('write-string', p, false);
  const [a, b] = unitRange('write-string', s, start, end);
  port.writeText(a === 0 && b === s.length ? s : s.slice(a, b));
  return VOID;
});
definePrimitive('write-u8', 1, 2, (/** @type {any} */ b, /** @type {any} */ p) => {
  const byte = checkByte('write-u8', b);
  outPort('write-u8', p, true).writeBytes(Uint8Array.of(byte));
  return VOID;
});
definePrimitive('write-bytevector', 1, 4, (/** @type {any} */ bv, /** @type {any} */ p, /** @type {any} */ start, /** @type {any} */ end) => {
  if (!(bv instanceof Uint8Array)) typeError('write-bytevector', 'a bytevector', bv);
  const port = outPort('write-bytevector', p, true);
  const [a, b] = checkRange('write-bytevector', start, end, bv.length);
  port.writeBytes(bv.subarray(a, b));
  return VOID;
});

/**
 * Register a printing primitive (write, display, ...) that prints with `toText`.
 * @param {string} name @param {(x: any) => string} toText
 */
function definePrinting(name, toText) {
  definePrimitive(name, 1, 2, (/** @type {any} */ x, /** @type {any} */ p) => {
    const port = outPort(name, p, false);
    port.writeText(toText(x));
    return VOID;
  });
}
definePrinting('write', (x) => printer.writeString(x));
definePrinting('write-shared', (x) => printer.writeSharedString(x));
definePrinting('write-simple', (x) => printer.writeSimpleString(x));
definePrinting('display', (x) => printer.displayString(x));

definePrimitive('flush-output-port', 0, 1, (/** @type {any} */ p) => {
  const port = absent(p) ? current.outputPort() : p;
  if (!(port instanceof Port) || !port.output) typeError('flush-output-port', 'an output port', port);
  if (!port.outputOpen) schemeErrorOf('io', 'flush-output-port', 'port is closed', port);
  port.flush();
  return VOID;
});

// ---------------------------------------------------------------------------------------
// Files.

/**
 * Run a host file operation; a HostError becomes a Scheme file error (kind 'file').
 * @template T
 * @param {string} who @param {string} action @param {string} path @param {() => T} op
 * @returns {T}
 */
function withHost(who, action, path, op) {
  try {
    return op();
  } catch (e) {
    if (e instanceof host.HostError) schemeErrorOf('file', who, `${action} (${e.message})`, path);
    throw e;
  }
}

/** Decodes text files; strips a leading byte order mark, invalid UTF-8 becomes U+FFFD. */
const fileDecoder = new TextDecoder('utf-8');

/** @param {any} path */
function openInputFile(path) {
  const who = 'open-input-file';
  checkString(who, path);
  const bytes = withHost(who, 'cannot open file', path, () => host.readFile(path));
  return new Port({ kind: 'file-input', input: true, text: fileDecoder.decode(bytes), name: path });
}

/** @param {any} path */
function openBinaryInputFile(path) {
  const who = 'open-binary-input-file';
  checkString(who, path);
  const bytes = withHost(who, 'cannot open file', path, () => host.readFile(path));
  return new Port({ kind: 'file-input', input: true, binary: true, bytes, name: path });
}

/**
 * File output ports not yet closed. They are block-buffered, so the driver calls
 * flushFilePorts() when a program ends, or a program that never closes its output file
 * would lose the last block. Like a table of file descriptors, this is host state that
 * no Scheme program can observe.
 * @type {Set<Port>}
 */
const openFilePorts = new Set();

/** Hand the buffered output of every open file port to its file (at program exit). */
export function flushFilePorts() {
  for (const p of openFilePorts) p.flush();
}

/**
 * @param {string} who @param {any} path @param {boolean} binary
 */
function openOutputFile(who, path, binary) {
  checkString(who, path);
  const file = withHost(who, 'cannot open file', path, () => host.openOutputFile(path));
  const port = new Port({
    kind: 'file-output',
    output: true,
    binary,
    name: path,
    buffering: 'block',
    sink: (chunk) => withHost(who, 'cannot write file', path, () => file.write(chunk)),
    onClose: () => {
      openFilePorts.delete(port);
      withHost(who, 'cannot close file', path, () => file.close());
    },
  });
  openFilePorts.add(port);
  return port;
}

definePrimitive('open-input-file', 1, 1, openInputFile);
definePrimitive('open-binary-input-file', 1, 1, openBinaryInputFile);
definePrimitive('open-output-file', 1, 1, (/** @type {any} */ path) => openOutputFile('open-output-file', path, false));
definePrimitive('open-binary-output-file', 1, 1, (/** @type {any} */ path) => openOutputFile('open-binary-output-file', path, true));
definePrimitive('file-exists?', 1, 1, (/** @type {any} */ path) => host.fileExists(checkString('file-exists?', path)));
definePrimitive('delete-file', 1, 1, (/** @type {any} */ path) => {
  checkString('delete-file', path);
  withHost('delete-file', 'cannot delete file', path, () => host.deleteFile(path));
  return VOID;
});

// ---------------------------------------------------------------------------------------
// §6.14 System interface (exit, emergency-exit and load are the driver's).

/** Feature identifiers of the language itself; the host adds its own (node, browser, ...). */
// `features` lists exactly what cond-expand treats as true: the language's features
// (expand/stdlib.js) and this host's, which are added to them here, when the runtime
// loads (so a program's cond-expand sees `node` or `posix` as (features) does).
for (const f of host.hostFeatures) if (!BASE_FEATURES.includes(f)) BASE_FEATURES.push(f);

definePrimitive('command-line', 0, 0, () => arrayToList(host.commandLine()));
definePrimitive('get-environment-variable', 1, 1, (/** @type {any} */ name) => {
  const v = host.getEnv(checkString('get-environment-variable', name));
  return v === undefined ? false : v;
});
definePrimitive('get-environment-variables', 0, 0, () => arrayToList(host.environment().map(([k, v]) => new Pair(k, v))));
definePrimitive('current-second', 0, 0, () => new Flonum(host.currentSecond()));
definePrimitive('current-jiffy', 0, 0, () => host.currentJiffy());
definePrimitive('jiffies-per-second', 0, 0, () => host.jiffiesPerSecond, { pure: true });
definePrimitive('features', 0, 0, () => arrayToList(BASE_FEATURES.map((f) => Sym.intern(f))));
