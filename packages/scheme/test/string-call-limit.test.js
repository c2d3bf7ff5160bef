// @ts-check
/**
 * The per-call string limit (prims-errors.js STRING_CALL_LIMIT, docs/processes.md
 * "Fairness"): a string is one JS string, made or converted in one call, so no call may
 * make, copy, map, convert or accumulate one longer than 1,048,576 characters. Each
 * string-making primitive refuses a longer one with a `resource-limit` error naming it,
 * before building anything; at the limit every one works and takes a bounded time; a
 * longer string that arrived another way (a message) can still be read, compared and
 * cut into pieces; comparisons skip long common prefixes at memory speed and keep
 * code-point order.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import os from 'node:os';
import { Char, MString, Pair, SchemeError } from '../src/values.js';
import { primitives } from '../src/engine/registry.js';
import { runBuiltin } from '../src/engine/resumable.js';
import { builtinUnit } from '../src/engine/builtins.js';
import { STRING_CALL_LIMIT } from '../src/primitives/prims-errors.js';
import { compareStrings } from '../src/primitives/prims-strings.js';
import { boot, runProgramText } from '@termite/scheme';
import '../src/primitives/prims-lists.js';
import '../src/primitives/prims-vectors.js';
import '../src/primitives/ports.js';

const L = STRING_CALL_LIMIT;

/** @param {string} name @param {...any} args */
function call(name, ...args) {
  const p = primitives.get(name);
  if (!p && builtinUnit.lamsByName.has(name)) return runBuiltin(name, args);
  assert.ok(p, `${name} is registered`);
  return p.fn(...args);
}

/** @param {() => any} fn @param {string} who */
function refused(fn, who) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof SchemeError, String(e));
    const o = /** @type {any} */ (e).payload;
    assert.equal(o.kind, 'resource-limit', `${who}: ${o.message}`);
    assert.equal(o.who, who);
    assert.match(o.message, new RegExp(`^cannot make a string of \\d+ characters in one call: at most ${L}`));
    return true;
  }, who);
}

const A = Char.of(97);

test('the limit is 1,048,576 characters', () => {
  assert.equal(L, 1_048_576);
});

test('every primitive that makes a string refuses one past the limit, naming itself', () => {
  const half = 'a'.repeat(L / 2);
  refused(() => call('make-string', L + 1, A), 'make-string');
  refused(() => call('string-append', half, half, 'b'), 'string-append');
  refused(() => call('vector->string', new Array(L + 1).fill(A)), 'vector->string');
  let chars = null;
  for (let i = 0; i <= L; i++) chars = new Pair(A, chars);
  refused(() => runBuiltin('list->string', [chars]), 'list->string');
  refused(() => call('utf8->string', new Uint8Array(L + 1).fill(97)), 'utf8->string');
  // a longer string from elsewhere (a message): a call may not copy, map or convert it whole
  const big = 'x'.repeat(L + 1);
  refused(() => call('string-copy', big), 'string-copy');
  refused(() => call('substring', big, 0, L + 1), 'substring');
  refused(() => call('string-upcase', big), 'string-upcase');
  refused(() => call('string->utf8', big), 'string->utf8');
  refused(() => call('string->vector', big), 'string->vector');
  refused(() => call('string->symbol', big), 'string->symbol');
});

test('a longer string that arrived in a message can still be read, compared and cut into pieces', () => {
  const big = 'x'.repeat(L + 10);
  assert.equal(call('string-length', big), L + 10);
  assert.equal(call('string-ref', big, L + 5).code, 120);
  const piece = call('substring', big, 10, L + 10);
  assert.ok(piece instanceof MString);
  assert.equal(piece.text().length, L);
  assert.equal(call('string->utf8', big, 0, L).length, L);
  assert.equal(call('string<?', big, big + 'y'), true);
});

test('a string port refuses the write past the limit, and keeps what it had', () => {
  boot();
  const r = runProgramText(`(let ((p (open-output-string)))
    (write-string (make-string ${L - 2} #\\a) p)
    (let ((e (guard (e ((error-object? e) (error-object-message e))) (write-string "bcd" p) 'written)))
      (list e (string-length (get-output-string p)))))`);
  assert.ok(r.ok, r.message);
  const [message, length] = [r.value.car, r.value.cdr.car];
  assert.match(message, new RegExp(`^cannot make a string of ${L + 1} characters in one call`));
  assert.equal(length, L - 2);
});

test('at the limit every string call works, and none takes long', () => {
  boot();
  const two = '\u0100'.repeat(L); // two-byte text: the slowest to copy
  /** @type {[string, () => any][]} */
  const calls = [
    ['make-string', () => call('make-string', L, A)],
    ['string-append', () => call('string-append', two.slice(0, L / 2), two.slice(L / 2))],
    ['string-copy', () => call('string-copy', two)],
    ['string-set! (the code points made)', () => call('string-set!', call('string-copy', two), 7, A)],
    ['string-upcase after string-set! (the text made again)', () => { const m = call('string-copy', two); call('string-set!', m, 7, A); return call('string-upcase', m); }],
    ['string-upcase', () => call('string-upcase', two)],
    ['string->utf8', () => call('string->utf8', two)],
    ['utf8->string', () => call('utf8->string', new Uint8Array(L).fill(97))],
    ['string->symbol', () => call('string->symbol', two.slice(1) + 'z')],
    ['string<? (a common prefix of all but the last)', () => call('string<?', two, two.slice(0, -1) + '\u0101')],
  ];
  /** @type {string[]} */
  const lines = [];
  let worst = 0;
  for (const [what, f] of calls) {
    f(); // warm
    let best = Infinity;
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      f();
      best = Math.min(best, performance.now() - t0);
    }
    worst = Math.max(worst, best);
    lines.push(`${what} ${best.toFixed(2)} ms`);
  }
  const load = os.loadavg()[0];
  console.log(`# one call at the string limit (${L} characters, two-byte), best of 3, load average ${load.toFixed(1)}: ${lines.join('; ')}`);
  // a few milliseconds on a quiet machine; the bound scales with the load it runs under
  const bound = 40 * Math.max(1, load / os.cpus().length);
  assert.ok(worst < bound, `the slowest call took ${worst.toFixed(1)} ms (bound ${bound.toFixed(0)} ms): ${lines.join('; ')}`);
});

test('comparisons skip a long common prefix natively and keep code-point order', () => {
  // the order of U+E000..U+FFFF against astral characters differs from UTF-16 order
  const prefix = 'p'.repeat(3 * 4096 + 5);
  const cases = ['a', 'b', '\uE000', '\uD83D\uDE00', '\uFFFF', '', 'ab'];
  for (const x of cases) {
    for (const y of cases) {
      const short = Math.sign(compareStrings(x, y));
      assert.equal(Math.sign(compareStrings(prefix + x, prefix + y)), short, `${JSON.stringify(x)} vs ${JSON.stringify(y)} after a long prefix`);
    }
  }
  // a prefix that differs inside the first block, and right after a block boundary
  assert.ok(compareStrings('a'.repeat(5000) + 'b' + 'z'.repeat(5000), 'a'.repeat(5000) + 'c') < 0);
  assert.ok(compareStrings('a'.repeat(4096) + 'c' + 'a'.repeat(9000), 'a'.repeat(4096) + 'b' + 'a'.repeat(9000)) > 0);
  // speed: two 16,000,000-unit strings differing only at the end compare in a native comparison's time
  const big = 'q'.repeat(16_000_000);
  const a = big + 'a';
  const b = big + 'b';
  a.charCodeAt(1); b.charCodeAt(1);
  const t0 = performance.now();
  assert.ok(compareStrings(a, b) < 0);
  const ours = performance.now() - t0;
  console.log(`# string<? of two 16,000,000-unit strings differing at the end: ${ours.toFixed(1)} ms`);
  assert.ok(ours < 100 * Math.max(1, os.loadavg()[0] / os.cpus().length), `${ours.toFixed(1)} ms`);
});
