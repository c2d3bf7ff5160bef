// @ts-check
/**
 * The value codec's fast paths (src/codec/: encode.js, writer.js): encodings handed out as
 * views of a shared slab must stay intact while later messages are encoded after them;
 * sharing and cycles must still be found when a message has more objects than the
 * small seen-table holds; short text decoded from the string cache must be the text of
 * the bytes, also when two strings fall into the same cache slot.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeValue, decodeValue, Pair, Sym, readAll, writeString } from '@termite/scheme';
import { encodeSmallValue, encodeSmallBetween, encodeAnyValue, registerValueCodec } from '../src/codec/index.js';
import { Flonum, Ratnum, Char, Box, VOID, EOF, MString, list } from '../src/values.js';

/** @param {Uint8Array} a */
const hex = (a) => Buffer.from(a).toString('hex');

test('an encoding stays intact while thousands of later ones fill and replace the slab', () => {
  const first = encodeValue([1, 'abc', Sym.intern('q')]);
  const copy = hex(first);
  /** @type {Uint8Array[]} */
  const kept = [];
  for (let i = 0; i < 5000; i++) {
    const e = encodeValue(['x'.repeat(i % 300), i]);
    if (i % 97 === 0) kept.push(e);
  }
  assert.equal(hex(first), copy);
  for (const e of kept) {
    const [s, i] = decodeValue(e);
    assert.equal(s, 'x'.repeat(i % 300));
  }
});

test('a value larger than the slab encodes whole, and the next small one after it too', () => {
  const big = new Uint8Array(100_000).fill(7);
  const e = encodeValue([big, 'tail']);
  const [b, t] = decodeValue(e);
  assert.equal(b.length, 100_000);
  assert.equal(b[99_999], 7);
  assert.equal(t, 'tail');
  assert.deepEqual(decodeValue(encodeValue(['after', 2])), ['after', 2]);
});

test('an encoding that fails leaves the writer usable', () => {
  assert.throws(() => encodeValue([1, () => 1]), /cannot serialize a JavaScript function/);
  assert.deepEqual(decodeValue(encodeValue(['ok', 1])), ['ok', 1]);
});

test('sharing is kept in a message with more objects than the small seen-table', () => {
  const shared = new Pair(1, null);
  const many = [];
  for (let i = 0; i < 40; i++) many.push(new Pair(i, null));
  many.push(shared, shared);
  const back = decodeValue(encodeValue(many));
  assert.equal(back.length, 42);
  assert.equal(back[40], back[41], 'the shared pair decodes to one object');
  assert.notEqual(back[0], back[1]);
});

test('a cycle survives the round trip', () => {
  const cyc = new Pair(1, null);
  cyc.cdr = cyc;
  const back = decodeValue(encodeValue(cyc));
  assert.equal(back.cdr, back);
  const vec = [1, 2];
  vec.push(vec);
  const v = decodeValue(encodeValue(vec));
  assert.equal(v[2], v);
});

test('short text from the decode cache is always the text of the bytes', () => {
  // many distinct strings of the same length: slots of the 256-entry cache are reused
  for (let i = 0; i < 3000; i++) {
    const s = `node-${i.toString(36).padStart(8, '0')}`;
    assert.equal(decodeValue(encodeValue(s)), s);
  }
  assert.equal(decodeValue(encodeValue('')), '');
  assert.equal(decodeValue(encodeValue('x'.repeat(64))), 'x'.repeat(64));
  assert.equal(decodeValue(encodeValue('héllo wörld')), 'héllo wörld');
  assert.throws(() => decodeValue(new Uint8Array([0x62, 0xff, 0xfe])), /invalid UTF-8/);
});

test('text lengths at the head-size boundaries encode as the shortest CBOR head', () => {
  assert.equal(hex(encodeValue('a'.repeat(23))).slice(0, 2), '77');
  assert.equal(hex(encodeValue('a'.repeat(24))).slice(0, 4), '7818');
  assert.equal(hex(encodeValue('a'.repeat(63))).slice(0, 4), '783f');
  assert.equal(hex(encodeValue('a'.repeat(64))).slice(0, 4), '7840'); // a code hash's length
  assert.equal(hex(encodeValue('a'.repeat(255))).slice(0, 4), '78ff');
  assert.equal(hex(encodeValue('a'.repeat(256))).slice(0, 6), '790100');
  assert.equal(hex(encodeValue('a'.repeat(300))).slice(0, 6), '79012c');
  // ASCII-looking text that is not ASCII further on takes the encoder's path, whole
  for (const s of ['a'.repeat(100) + 'é', 'é' + 'a'.repeat(200), 'a'.repeat(254) + '€']) {
    const bytes = encodeValue(s);
    assert.equal(decodeValue(bytes), s);
    assert.equal(bytes.length, new TextEncoder().encode(s).length + (new TextEncoder().encode(s).length < 256 ? 2 : 3));
  }
});

test('the one-pass encoding of a small value is byte for byte the two-pass one', () => {
  const values = [
    0, -1, 23, 24, 255, 65536, -4294967297, Number.MAX_SAFE_INTEGER, true, false, null, '', 'abc', 'é ü', 'x'.repeat(200),
    new Flonum(1.5), new Flonum(NaN), new Ratnum(1n, 3n), 12345678901234567890123n, Sym.intern('sym'), Sym.gensym('g'), Char.of(955), VOID, EOF,
    new Pair(1, 2), list(1, 2, 3), list(list(1, 'a'), new Pair(Sym.intern('k'), new Flonum(2.25))), new Pair(1, new Pair(2, 3)),
    [], [1, [2, [3, []]]], new Uint8Array([1, 2, 3]), [1, 'two', list(3), new Uint8Array(300).fill(9)],
    [1, 'node-id-0123456789abcdef', 7, new Pair(Sym.intern('ping'), 0), []],
  ];
  for (const v of values) {
    const small = encodeSmallValue(v);
    const any = hex(encodeAnyValue(v));
    // bigints are not small (the two-pass encoder writes them); everything else is
    if (typeof v === 'bigint') assert.equal(small, null);
    else assert.notEqual(small, null, `not small: ${hex(encodeAnyValue(v))}`);
    if (small !== null) assert.equal(hex(small), any);
    assert.equal(hex(encodeValue(v)), any);
  }
});

test('encodeSmallBetween writes the bytes of the whole array around an item, or null when the item is not small', () => {
  const head = encodeSmallValue([1, 'node-id-0123456789abcdef', 7, 0, []]);
  assert.ok(head !== null);
  // the array's head and its first three items: everything before the fourth item's byte (0x00)
  const prefix = head.slice(0, head.length - 2);
  const tail = new Uint8Array([0x80]);
  const items = [0, 'text', list(1, 2, 3), [1, [2, new Uint8Array([5])]], new Pair(Sym.intern('ping'), 0),
    Array.from({ length: 13 }, (_, i) => list(i))];
  for (const v of items) {
    const whole = [1, 'node-id-0123456789abcdef', 7, v, []];
    const between = encodeSmallBetween(prefix, v, tail);
    assert.ok(between !== null, `small: ${hex(encodeAnyValue(whole))}`);
    assert.equal(hex(between), hex(encodeAnyValue(whole)));
  }
  // as encodeSmallValue counts them, the array and its last item take two of the 32 objects
  assert.notEqual(encodeSmallBetween(prefix, Array.from({ length: 14 }, (_, i) => list(i)), tail), null);
  assert.equal(encodeSmallBetween(prefix, Array.from({ length: 15 }, (_, i) => list(i, i)), tail), null);
  const shared = list(1);
  assert.equal(encodeSmallBetween(prefix, [shared, shared], tail), null);
  // nothing of a failed attempt is left: the next encoding is whole
  assert.deepEqual(decodeValue(encodeValue(['after', 2])), ['after', 2]);
});

test('decodeValue of a range decodes exactly the item there, and says when it runs short or past the end', () => {
  const bytes = encodeValue([9, list(1, 2), 'x']);
  // [0x83, 0x09, <list>, <'x'>]: the list starts at byte 2, 'x' takes the last two bytes
  const start = 2;
  const end = bytes.length - 2;
  const l = decodeValue(bytes, {}, start, end);
  assert.ok(l instanceof Pair && l.car === 1 && /** @type {any} */ (l.cdr).car === 2);
  assert.throws(() => decodeValue(bytes, {}, start, end + 1), /1 trailing bytes after the value/);
  assert.throws(() => decodeValue(bytes, {}, start, end - 1), /runs 1 bytes past its end/);
});

test('a value that is not small falls back to the two-pass encoder, with its sharing and cycles', () => {
  const shared = list(1, 2);
  const withSharing = [shared, shared];
  const cyclic = list(1, 2, 3);
  /** @type {any} */ (cyclic.cdr.cdr).cdr = cyclic;
  const sharedBytes = new Uint8Array(4);
  const boxed = new Box(5);
  const deep = [[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]];
  const many = Array.from({ length: 40 }, (_, i) => list(i));
  for (const v of [withSharing, cyclic, [sharedBytes, sharedBytes], [boxed], deep, many, list(...many)]) {
    assert.equal(encodeSmallValue(v), null);
    assert.equal(hex(encodeValue(v)), hex(encodeAnyValue(v)));
  }
  const back = decodeValue(encodeValue(withSharing));
  assert.equal(back[0], back[1], 'the shared list is one object again');
  const c = decodeValue(encodeValue(cyclic));
  assert.equal(c.cdr.cdr.cdr, c, 'the cycle is closed again');
  // a failed small attempt leaves nothing behind: the next encoding is whole
  assert.deepEqual(decodeValue(encodeValue(['after', 1])), ['after', 1]);
});

test('a value the small path cannot encode raises the two-pass encoder\'s error', () => {
  assert.throws(() => encodeValue([1, undefined]), /cannot serialize a JavaScript undefined/);
  assert.throws(() => encodeValue([1, () => 0]), /cannot serialize/);
  assert.deepEqual(decodeValue(encodeValue([2, 'ok'])), [2, 'ok']);
});

test('no value codec can be registered for an array or bytevector class: the one-pass encoder tests for those first', () => {
  class Row extends Array {}
  class Blob extends Uint8Array {}
  for (const cls of [Array, Uint8Array, Row, Blob]) {
    assert.throws(() => registerValueCodec({ tag: 40999, cls, encode: () => [], decode: () => null }), TypeError, cls.name);
  }
});

test('a mutable string travels under its own tag, arrives mutable, and keeps its identity within one value', () => {
  const s = new MString('abc');
  const bytes = encodeValue(s);
  assert.equal(hex(bytes), 'd9a018' + '63616263'); // tag 40984, text "abc"
  assert.equal(hex(encodeAnyValue(s)), hex(bytes));
  const back = decodeValue(bytes);
  assert.ok(back instanceof MString);
  assert.notEqual(back, s);
  assert.equal(back.text(), 'abc');
  // changed after a string-set! (code points only): the current text is what is written
  const t = new MString(null, [0x1f600, 0x61]);
  assert.equal(decodeValue(encodeValue(t)).text(), '😀a');
  // one string twice in a value: one string twice after decoding (tag 28/29)
  const v = decodeValue(encodeValue(list(s, s, 'abc')));
  assert.ok(v.car === v.cdr.car && v.car instanceof MString);
  assert.equal(v.cdr.cdr.car, 'abc');
  // an immutable string is plain CBOR text, as always
  assert.equal(hex(encodeValue('abc')), '63616263');
});

test('stringsAsText (tuples): a mutable string is written as plain text, without identity, like an immutable one', () => {
  const s = new MString('key');
  assert.equal(hex(encodeValue([s, s], { stringsAsText: true })), hex(encodeValue(['key', 'key'])));
  const many = Array.from({ length: 40 }, () => list(s));
  assert.equal(hex(encodeValue(many, { stringsAsText: true })), hex(encodeValue(Array.from({ length: 40 }, () => list('key')))));
  // the option ends with the call
  assert.ok(decodeValue(encodeValue(s)) instanceof MString);
});

test('a complex number travels as tag 43000 around its two parts, exact or inexact, and comes back equal', () => {
  const exactZ = readAll('1/2-3i')[0];
  const bytes = encodeValue(exactZ);
  assert.equal(hex(bytes).slice(0, 10), 'd9a7f882d8'); // tag 43000, [ tag 30 ...
  assert.equal(writeString(decodeValue(bytes)), '1/2-3i');
  for (const text of ['1.5-2.5i', '+i', '+inf.0i', '+2.0i', '123456789012345678901234567890+1i']) {
    const z = readAll(text)[0];
    assert.equal(hex(encodeAnyValue(z)), hex(encodeValue(z)), text);
    assert.equal(writeString(decodeValue(encodeValue(z))), writeString(z), text);
  }
  // a malformed complex (an exact zero imaginary part) is refused
  assert.throws(() => decodeValue(Uint8Array.from([0xd9, 0xa7, 0xf8, 0x82, 0x01, 0x00])), /bad complex number/);
});
