// @ts-check
/**
 * Closures in the one-pass encoder (codec/encode.js): given an onCode, a closure over
 * small values is encoded in one pass, with its code reference written from bytes kept
 * per unit. What a bug there would break: the bytes (they must be the two-pass
 * encoder's, byte for byte, or a receiver decodes something else), onCode seeing every
 * unit that travels (a receiver would not learn which environments to refresh), the
 * sharing of a code reference or a free value met twice (the two-pass encoder's tags
 * 28/29), and which unit a kept reference belongs to when several units are encoded in
 * turn.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileProgramText, linkProgram, Thread, runToCompletion, decodeValue, Closure } from '../src/index.js';
import { encodeSmallValue, encodeAnyValue, encodeValue } from '../src/codec/index.js';

/** A linked program, run, and a closure its top level defined. */
function program() {
  const prog = linkProgram(compileProgramText(`
    (define data (list '(1 2 3) "local data" 42))
    (define (make-thunk tag) (lambda () (list tag (+ (apply + (car data)) (caddr data)))))
    (define (make-other x) (lambda (y) (+ x y)))`, { file: 'closures.scm' }));
  assert.equal(runToCompletion(new Thread(prog.top, [])).ok, true);
  /** @param {string} name @param {any[]} args */
  const call = (name, ...args) => {
    const r = runToCompletion(new Thread(/** @type {any} */ (prog.env.cells.get(name)).v, args));
    assert.ok(r.ok && r.value instanceof Closure);
    return /** @type {Closure} */ (r.value);
  };
  return { prog, call };
}

/** @param {Uint8Array | null} b */
const hex = (b) => (b === null ? 'null' : Buffer.from(b).toString('hex'));

test('a closure over small values is small with an onCode: the two-pass bytes, and onCode sees its unit', () => {
  const { prog, call } = program();
  const thunk = call('make-thunk', 7);
  /** @type {any[]} */
  const seenOne = [];
  /** @type {any[]} */
  const seenTwo = [];
  const value = [20, thunk, 'x', false];
  const one = hex(encodeSmallValue(value, (u) => seenOne.push(u)));
  const two = hex(encodeAnyValue(value, { onCode: (u) => seenTwo.push(u) }));
  assert.equal(one, two);
  assert.deepEqual(seenOne, [thunk.lam.unit]);
  assert.deepEqual(seenTwo, [thunk.lam.unit]);
  // without an onCode a closure is never small (a unit would travel unseen)
  assert.equal(encodeSmallValue(value), null);
  const back = /** @type {any[]} */ (decodeValue(encodeValue(value), { resolveCode: (hash) => (hash === prog.hash ? prog : null) }));
  assert.ok(back[1] instanceof Closure);
  assert.equal(back[1].lam, thunk.lam);
  assert.equal(back[1].fv.length, thunk.fv.length);
  assert.equal(back[1].fv[0], 7);
});

test('a code reference or a free value met twice is left to the two-pass encoder, which shares it', () => {
  const { prog, call } = program();
  const a = call('make-thunk', 1);
  const b = call('make-thunk', 2);
  const noop = () => {};
  // two closures of one unit: the two-pass encoder writes the code reference once (tag 28/29)
  assert.equal(encodeSmallValue([a, b], noop), null);
  const both = encodeAnyValue([a, b], { onCode: noop });
  const back = /** @type {any[]} */ (decodeValue(both, { resolveCode: (hash) => (hash === prog.hash ? prog : null) }));
  assert.equal(back[0].lam, a.lam);
  assert.equal(back[1].fv[0], 2);
  // one closure twice, and a closure whose free value also appears beside it
  assert.equal(encodeSmallValue([a, a], noop), null);
  const shared = ['x'];
  const c = call('make-other', shared);
  assert.equal(encodeSmallValue([c, shared], noop), null);
  assert.notEqual(encodeSmallValue([c], noop), null);
});

test('kept code references stay with their units when units are encoded in turn', () => {
  const first = program();
  const second = linkProgram(compileProgramText('(define (f z) (lambda () z))', { file: 'other.scm' }));
  assert.equal(runToCompletion(new Thread(second.top, [])).ok, true);
  const r = runToCompletion(new Thread(/** @type {any} */ (second.env.cells.get('f')).v, [5]));
  const other = /** @type {Closure} */ (r.value);
  const mine = first.call('make-thunk', 3);
  assert.notEqual(other.lam.unit.hash, mine.lam.unit.hash);
  const noop = () => {};
  const resolveCode = (/** @type {string} */ hash) => (hash === first.prog.hash ? first.prog : hash === second.hash ? second : null);
  // A, B, A, B: each encoding names its own unit, and equals the two-pass one
  for (const clo of [mine, other, mine, other]) {
    const bytes = encodeSmallValue([clo], noop);
    assert.equal(hex(bytes), hex(encodeAnyValue([clo], { onCode: noop })));
    const back = /** @type {any[]} */ (decodeValue(/** @type {Uint8Array} */ (bytes).slice(), { resolveCode }));
    assert.equal(back[0].lam, clo.lam);
    assert.equal(back[0].fv[0], clo.fv[0]);
  }
});
