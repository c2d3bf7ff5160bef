// @ts-check
// R7RS §6.13 Input and output: ports, reading, writing, files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Char, EOF, Pair, Sym, SchemeError, VOID, list, listToArray } from '../src/values.js';
import { primitives } from '../src/engine/registry.js';
import { current } from '../src/engine/current.js';
import { Port } from '../src/primitives/port.js';
import { flushFilePorts } from '../src/primitives/ports.js';
import { writeString } from '../src/printer.js';
import '../src/primitives/prims-lists.js';
import '../src/primitives/console-input.js';
import { builtinUnit } from '../src/engine/builtins.js';
import { rtEnv } from '../src/engine/linker.js';

/**
 * A primitive, or one of the input builtins (console-input.js: they may wait for console
 * input, so they are procedures of the engine rather than primitives).
 * @param {string} name @param {...any} args
 */
function call(name, ...args) {
  const p = primitives.get(name);
  if (p) return p.fn(...args);
  const lam = builtinUnit.lamsByName.get(name);
  assert.ok(lam, `${name} is registered`);
  return lam.fast.call(rtEnv.cell(name).v, 0, ...args);
}
/** @param {string} s */
const ch = (s) => Char.of(/** @type {number} */ (s.codePointAt(0)));
const sym = (/** @type {string} */ s) => Sym.intern(s);
/** @param {...number} xs */
const u8 = (...xs) => Uint8Array.from(xs);

/**
 * @param {() => any} fn @param {string} who @param {string} message
 * @param {any[]} [irritants] @param {string} [kind]
 */
function assertError(fn, who, message, irritants, kind) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof SchemeError, String(e));
    assert.equal(e.payload.who, who);
    assert.equal(e.payload.message, message);
    if (irritants) assert.deepEqual(listToArray(e.payload.irritants), irritants);
    if (kind) assert.equal(e.payload.kind, kind);
    return true;
  });
}

/** Read every character of a textual input port into a JS string. @param {Port} p */
function drain(p) {
  let s = '';
  for (let c = call('read-char', p); c !== EOF; c = call('read-char', p)) s += String.fromCodePoint(c.code);
  return s;
}

/** A textual input port fed by `chunks` one pull at a time. @param {string[]} chunks */
function chunked(chunks) {
  const queue = chunks.slice();
  return new Port({ kind: 'pipe-input', input: true, source: () => queue.shift() ?? null });
}

test('read gives the results of the R7RS example on a string port', () => {
  const p = call('open-input-string', '(a . (b . (c . ()))) 34');
  assert.equal(call('input-port?', p), true);
  assert.deepEqual(listToArray(call('read', p)), [sym('a'), sym('b'), sym('c')]);
  assert.equal(call('read', p), 34);
  assert.equal(call('eof-object?', call('read', p)), true);
  assert.equal(call('read', p), EOF, 'and again at the end');
});

test('write and get-output-string give the result of the R7RS example', () => {
  const q = call('open-output-string');
  const x = list(sym('a'), sym('b'), sym('c'));
  call('write', call('car', x), q);
  call('write', call('cdr', x), q);
  assert.equal(call('get-output-string', q), 'a(b c)');
});

test('port predicates tell input from output and textual from binary', () => {
  const si = call('open-input-string', 'x');
  const so = call('open-output-string');
  const bi = call('open-input-bytevector', u8(1));
  const bo = call('open-output-bytevector');
  /** @type {[any, boolean, boolean, boolean][]} port, input?, output?, textual? */
  const cases = [
    [si, true, false, true],
    [so, false, true, true],
    [bi, true, false, false],
    [bo, false, true, false],
  ];
  for (const [p, input, output, textual] of cases) {
    assert.equal(call('port?', p), true);
    assert.equal(call('input-port?', p), input);
    assert.equal(call('output-port?', p), output);
    assert.equal(call('textual-port?', p), textual);
    assert.equal(call('binary-port?', p), !textual);
    assert.equal(call('input-port-open?', p), input);
    assert.equal(call('output-port-open?', p), output);
  }
  for (const name of ['port?', 'input-port?', 'output-port?', 'textual-port?', 'binary-port?']) assert.equal(call(name, 'not a port'), false);
  assertError(() => call('input-port-open?', 'x'), 'input-port-open?', 'expected a port', ['x'], 'type');
});

test('read-char and peek-char return whole characters, astral ones included, then EOF', () => {
  const p = call('open-input-string', 'a😀b');
  assert.equal(call('peek-char', p), ch('a'));
  assert.equal(call('read-char', p), ch('a'));
  assert.equal(call('peek-char', p), ch('😀'));
  assert.equal(call('peek-char', p), ch('😀'), 'peek does not consume');
  assert.equal(call('read-char', p), ch('😀'));
  assert.equal(call('read-char', p), ch('b'));
  assert.equal(call('peek-char', p), EOF);
  assert.equal(call('read-char', p), EOF);
  assert.equal(call('char-ready?', p), true);
});

test('read-line splits on LF, CRLF and CR and returns the last line without a terminator', () => {
  const p = call('open-input-string', 'one\ntwo\r\nthree\rfour\n\nlast');
  const lines = [];
  for (let l = call('read-line', p); l !== EOF; l = call('read-line', p)) lines.push(l);
  assert.deepEqual(lines, ['one', 'two', 'three', 'four', '', 'last']);
  assert.equal(call('read-line', call('open-input-string', '')), EOF);
  const q = call('open-input-string', 'x\n');
  assert.equal(call('read-line', q), 'x');
  assert.equal(call('read-line', q), EOF, 'a final newline does not make an empty last line');
});

test('read-string reads up to k characters and EOF only when nothing is left', () => {
  const p = call('open-input-string', 'ab😀cd');
  assert.equal(call('read-string', 0, p), '');
  assert.equal(call('read-string', 3, p), 'ab😀');
  assert.equal(call('read-string', 10, p), 'cd');
  assert.equal(call('read-string', 1, p), EOF);
  assertError(() => call('read-string', -1, p), 'read-string', 'expected an exact non-negative integer', [-1]);
});

test('read and read-char can be interleaved on one port', () => {
  const p = call('open-input-string', '(a) #\\x "s" rest');
  assert.deepEqual(listToArray(call('read', p)), [sym('a')]);
  assert.equal(call('read-char', p), ch(' '));
  assert.equal(call('read', p), ch('x'));
  assert.equal(call('read', p), 's');
  assert.equal(call('read-char', p), ch(' '));
  assert.equal(call('read-string', 2, p), 're');
  assert.equal(call('read', p), sym('st'));
  assert.equal(call('read', p), EOF);
});

test('a read error leaves a read-error object and names the location', () => {
  const p = call('open-input-string', '(1 2');
  assert.throws(
    () => call('read', p),
    (e) => e instanceof SchemeError && e.payload.kind === 'read' && call('read-error?', e.payload),
  );
});

test('input from a source function joins chunks, even across surrogate pairs and CRLF', () => {
  const smile = '😀';
  const p = chunked(['a', smile[0], `${smile[1]}b\r`, '\nc', 'd']);
  assert.equal(call('read-char', p), ch('a'));
  assert.equal(call('peek-char', p), ch('😀'));
  assert.equal(call('read-line', p), '😀b');
  assert.equal(call('read-line', p), 'cd');
  assert.equal(call('read-line', p), EOF);
  assert.equal(drain(chunked(['x', smile[0], smile[1], 'y'])), 'x😀y');
  const q = chunked(['ab', smile[0], smile[1], 'cd']);
  assert.equal(call('read-string', 3, q), 'ab😀');
  assert.equal(call('read-string', 5, q), 'cd');
  const r = chunked(['(1 ', '2) (3', ')']);
  assert.deepEqual(listToArray(call('read', r)), [1, 2]);
  assert.deepEqual(listToArray(call('read', r)), [3]);
});

test('write-char, newline, write-string and display write to a string port', () => {
  const p = call('open-output-string');
  assert.equal(call('write-char', ch('😀'), p), VOID);
  call('newline', p);
  call('write-string', 'hello', p);
  call('write-string', 'a😀bcd', p, 1, 3);
  call('write-string', 'xyz', p, 2);
  call('display', 'str', p);
  call('display', ch('c'), p);
  call('write', 'str', p);
  call('write', ch('c'), p);
  assert.equal(call('get-output-string', p), '😀\nhello😀bzstrc"str"#\\c');
  assertError(() => call('write-char', 'a', p), 'write-char', 'expected a character', ['a'], 'type');
  assertError(() => call('write-string', 'abc', p, 0, 4), 'write-string', 'index out of range', [4, 3], 'range');
});

test('write labels cycles, write-shared labels sharing, write-simple labels nothing', () => {
  const x = list(1, 2);
  const both = list(x, x);
  const out = (/** @type {string} */ name, /** @type {any} */ v) => {
    const p = call('open-output-string');
    call(name, v, p);
    return call('get-output-string', p);
  };
  assert.equal(out('write', both), '((1 2) (1 2))');
  assert.equal(out('write-shared', both), '(#0=(1 2) #0#)');
  assert.equal(out('write-simple', both), '((1 2) (1 2))');
  const cyc = list(1, 2);
  /** @type {any} */ (cyc).cdr.cdr = cyc;
  assert.equal(out('write', cyc), '#0=(1 2 . #0#)');
});

test('output procedures without a port argument use the current output port at call time', () => {
  const saved = current.outputPort;
  try {
    const a = call('open-output-string');
    const b = call('open-output-string');
    let target = a;
    current.outputPort = () => target;
    call('display', 'to a');
    call('newline');
    target = b;
    call('write', 'to b');
    call('write-char', ch('!'));
    call('write-string', 'x');
    assert.equal(call('get-output-string', a), 'to a\n');
    assert.equal(call('get-output-string', b), '"to b"!x');
  } finally {
    current.outputPort = saved;
  }
});

test('input procedures without a port argument use the current input port at call time', () => {
  const saved = current.inputPort;
  try {
    const p = call('open-input-string', 'xy\n(1)');
    current.inputPort = () => p;
    assert.equal(call('peek-char'), ch('x'));
    assert.equal(call('read-char'), ch('x'));
    assert.equal(call('read-line'), 'y');
    assert.deepEqual(listToArray(call('read')), [1]);
    assert.equal(call('read-string', 1), EOF);
    assert.equal(call('char-ready?'), true);
  } finally {
    current.inputPort = saved;
  }
});

test('bytevector ports read and write bytes, with read-bytevector! filling a range', () => {
  const src = u8(1, 2, 3, 4, 5);
  const p = call('open-input-bytevector', src);
  src[0] = 99;
  assert.equal(call('peek-u8', p), 1, 'the port has its own copy');
  assert.equal(call('read-u8', p), 1);
  assert.deepEqual(call('read-bytevector', 2, p), u8(2, 3));
  const buf = u8(0, 0, 0, 0);
  assert.equal(call('read-bytevector!', buf, p, 1), 2);
  assert.deepEqual(buf, u8(0, 4, 5, 0));
  assert.equal(call('read-u8', p), EOF);
  assert.equal(call('peek-u8', p), EOF);
  assert.equal(call('read-bytevector', 3, p), EOF);
  assert.equal(call('read-bytevector!', buf, p), EOF);
  assert.deepEqual(call('read-bytevector', 0, p), u8());
  assert.equal(call('u8-ready?', p), true);
  const o = call('open-output-bytevector');
  call('write-u8', 65, o);
  call('write-u8', 66, o);
  call('write-bytevector', u8(1, 2, 3, 4), o, 1, 3);
  assert.deepEqual(call('get-output-bytevector', o), u8(65, 66, 2, 3));
  for (let i = 0; i < 1000; i++) call('write-u8', i & 255, o);
  assert.equal(call('get-output-bytevector', o).length, 1004, 'the buffer grows');
  assertError(() => call('write-u8', 256, o), 'write-u8', 'expected a byte (an exact integer from 0 to 255)', [256], 'type');
});

test('textual and binary procedures refuse ports of the other kind', () => {
  const bi = call('open-input-bytevector', u8(1));
  const si = call('open-input-string', 'x');
  const so = call('open-output-string');
  const bo = call('open-output-bytevector');
  assertError(() => call('read-char', bi), 'read-char', 'expected a textual input port', [bi], 'type');
  assertError(() => call('read-u8', si), 'read-u8', 'expected a binary input port', [si], 'type');
  assertError(() => call('write-u8', 1, so), 'write-u8', 'expected a binary output port', [so], 'type');
  assertError(() => call('display', 1, bo), 'display', 'expected a textual output port', [bo], 'type');
  assertError(() => call('read-char', so), 'read-char', 'expected a textual input port', [so], 'type');
  assertError(() => call('get-output-string', bo), 'get-output-string', 'expected a port made by open-output-string', [bo]);
  assertError(() => call('get-output-bytevector', so), 'get-output-bytevector', 'expected a port made by open-output-bytevector', [so]);
  assertError(() => call('open-input-string', 5), 'open-input-string', 'expected a string', [5], 'type');
});

test('closed ports report themselves closed and refuse further I/O', () => {
  const p = call('open-input-string', 'abc');
  assert.equal(call('close-port', p), VOID);
  assert.equal(call('input-port-open?', p), false);
  assertError(() => call('read-char', p), 'read-char', 'port is closed', [p], 'io');
  call('close-port', p);
  const o = call('open-output-string');
  call('write-string', 'kept', o);
  call('close-output-port', o);
  assert.equal(call('output-port-open?', o), false);
  assertError(() => call('write-char', ch('x'), o), 'write-char', 'port is closed', [o], 'io');
  assert.equal(call('get-output-string', o), 'kept');
  const i = call('open-input-string', 'x');
  call('close-input-port', i);
  assert.equal(call('input-port-open?', i), false);
  assertError(() => call('close-input-port', o), 'close-input-port', 'expected an input port', [o], 'type');
  assertError(() => call('close-output-port', i), 'close-output-port', 'expected an output port', [i], 'type');
});

test('a console port hands its output to the sink line by line, and flushes on request and on close', () => {
  /** @type {string[]} */
  const chunks = [];
  const out = Port.console((s) => chunks.push(s));
  call('display', 'partial', out);
  assert.deepEqual(chunks, [], 'held until a newline');
  call('write-string', ' line\nnext', out);
  assert.deepEqual(chunks, ['partial line\nnext']);
  call('display', ' more', out);
  call('flush-output-port', out);
  assert.deepEqual(chunks, ['partial line\nnext', ' more']);
  call('display', 'end', out);
  call('close-port', out);
  assert.deepEqual(chunks, ['partial line\nnext', ' more', 'end']);
  /** @type {string[]} */
  const each = [];
  const raw = Port.console((s) => each.push(s), { buffering: 'none' });
  call('write-char', ch('a'), raw);
  call('write-char', ch('b'), raw);
  assert.deepEqual(each, ['a', 'b']);
  /** @type {Uint8Array[]} */
  const bytes = [];
  const bin = Port.console((b) => bytes.push(b), { binary: true, buffering: 'none' });
  call('write-u8', 7, bin);
  assert.deepEqual(bytes, [u8(7)]);
  assert.equal(call('binary-port?', bin), true);
});

test('a port prints as #<port kind>', () => {
  assert.equal(writeString(call('open-input-string', '')), '#<port string-input>');
  assert.equal(writeString(call('open-output-bytevector')), '#<port bytevector-output>');
});

test('eof-object returns the object eof-object? recognises', () => {
  assert.equal(call('eof-object?', call('eof-object')), true);
  assert.equal(call('eof-object?', call('read-char', call('open-input-string', ''))), true);
  assert.equal(call('eof-object?', ''), false);
  assert.equal(call('eof-object?', null), false);
});

test('text and binary files can be written, checked, read back and deleted', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'termite-io-'));
  try {
    const file = path.join(dir, 'text.scm');
    assert.equal(call('file-exists?', file), false);
    const out = call('open-output-file', file);
    assert.equal(call('textual-port?', out), true);
    call('write', list(sym('define'), sym('x'), 'λ😀'), out);
    call('newline', out);
    call('display', 'second line', out);
    call('close-port', out);
    assert.equal(call('file-exists?', file), true);
    assert.equal(fs.readFileSync(file, 'utf8'), '(define x "λ😀")\nsecond line');
    const inp = call('open-input-file', file);
    const datum = call('read', inp);
    assert.equal(datum instanceof Pair, true);
    assert.equal(listToArray(datum)[2], 'λ😀');
    assert.equal(call('read-char', inp), ch('\n'));
    assert.equal(call('read-line', inp), 'second line');
    assert.equal(call('read-line', inp), EOF);
    call('close-input-port', inp);

    const bin = path.join(dir, 'data.bin');
    const bo = call('open-binary-output-file', bin);
    call('write-bytevector', u8(0, 1, 254, 255), bo);
    call('write-u8', 42, bo);
    call('close-output-port', bo);
    const bi = call('open-binary-input-file', bin);
    assert.deepEqual(call('read-bytevector', 10, bi), u8(0, 1, 254, 255, 42));
    call('close-port', bi);

    assert.equal(call('delete-file', bin), VOID);
    assert.equal(call('file-exists?', bin), false);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a read error in a file names the file, line and column', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'termite-io-'));
  try {
    const file = path.join(dir, 'bad.scm');
    fs.writeFileSync(file, '(ok)\n  (oops');
    const p = call('open-input-file', file);
    assert.deepEqual(listToArray(call('read', p)), [sym('ok')]);
    assert.throws(
      () => call('read', p),
      (e) => e instanceof SchemeError && e.payload.kind === 'read' && String(e.payload.loc).startsWith(`${file}:2:3`),
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('open-input-file signals a file error naming the procedure and the file', () => {
  assertError(() => call('open-input-file', '/no/such/dir/x.scm'), 'open-input-file', 'cannot open file (no such file or directory)', ['/no/such/dir/x.scm'], 'file');
  assertError(() => call('open-binary-input-file', '/no/such/dir/x.bin'), 'open-binary-input-file', 'cannot open file (no such file or directory)', undefined, 'file');
  assertError(() => call('open-input-file', 7), 'open-input-file', 'expected a string', [7], 'type');
});

test('flushFilePorts writes out what unclosed file ports still buffer', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'termite-io-'));
  try {
    const file = path.join(dir, 'unclosed.txt');
    const out = call('open-output-file', file);
    call('display', 'buffered', out);
    assert.equal(fs.readFileSync(file, 'utf8'), '', 'still in the buffer');
    flushFilePorts();
    assert.equal(fs.readFileSync(file, 'utf8'), 'buffered');
    call('display', ' and closed', out);
    call('close-port', out);
    assert.equal(fs.readFileSync(file, 'utf8'), 'buffered and closed');
    flushFilePorts();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
