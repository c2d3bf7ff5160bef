// @ts-check
/**
 * R7RS §6.13 input and output: the primitives over ports (predicates, string and
 * bytevector ports, reading, `read`, writing, printing, file ports). The Port object
 * itself is port.js; the system interface (§6.14) is prims-system.js.
 *
 * Invariants: primitives whose port argument is optional use current.outputPort() /
 * current.inputPort() at call time (engine/current.js), never a cached port; every port
 * argument is checked to be an open port of the right direction and kind before it is
 * used; a host file error becomes a Scheme error of kind 'file' naming the procedure and
 * the file; file output ports not yet closed are flushed by flushFilePorts when a
 * program ends.
 */
import { Char, EOF, VOID, schemeErrorOf } from '../values.js';
import { Reader } from '../reader.js';
import * as printer from '../printer.js';
import { definePrimitive } from '../engine/registry.js';
import { current } from '../engine/current.js';
import { charge, walked, built } from '../engine/engine.js';
import { absent, typeError, checkRange, checkLength } from './prims-errors.js';
import { checkString, unitRange } from './prims-strings.js';
import { checkByte, checkMutableBytevector } from './prims-vectors.js';
import * as host from '../engine/host.js';
import { Port, WOULD_BLOCK } from './port.js';

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

// read-char, peek-char, read-line, char-ready?, read-string and read are builtins that
// may wait for console input: console-input.js.
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
export function readDatum(port) {
  if (port.waitable) return readArrived(port);
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

/**
 * `read` on a waitable port: a datum from the text that has arrived, when a delimiter or
 * the end of input follows it; otherwise (the datum may go on, or is incomplete, or the
 * text is only whitespace so far) WOULD_BLOCK. A syntax error is reported once the input
 * has ended, since more text might have completed the datum.
 * @param {Port} port
 */
function readArrived(port) {
  const ended = port.fillAvailable() && port.source === null;
  const reader = new Reader(port.text, { locations: false });
  if (port.pos > 0) reader.pos = port.pos;
  let datum;
  try {
    datum = reader.read();
  } catch (e) {
    if (ended) throw e;
    throw WOULD_BLOCK;
  }
  if (!ended && reader.offset >= port.text.length) throw WOULD_BLOCK;
  port.pos = reader.offset;
  return datum;
}

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
  s = checkString('write-string', s);
  const port = outPort('write-string', p, false);
  const [a, b] = unitRange('write-string', s, start, end);
  charge(walked((b - a) >>> 3));
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
    const text = toText(x);
    charge(built(text.length)); // printing costs ~50 ns a character
    port.writeText(text);
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
  path = checkString(who, path);
  const bytes = withHost(who, 'cannot open file', path, () => host.readFile(path));
  return new Port({ kind: 'file-input', input: true, text: fileDecoder.decode(bytes), name: path });
}

/** @param {any} path */
function openBinaryInputFile(path) {
  const who = 'open-binary-input-file';
  path = checkString(who, path);
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
  path = checkString(who, path);
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
  path = checkString('delete-file', path);
  withHost('delete-file', 'cannot delete file', path, () => host.deleteFile(path));
  return VOID;
});
