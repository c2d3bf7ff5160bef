// @ts-check
// Every primitive that walks a list detects cycles (tortoise and hare) without false alarms:
// checked on every proper list up to 40 elements and every cycle shape up to 20 + 20.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pair, Char, SchemeError, list } from '../src/values.js';
import { primitives } from '../src/engine/registry.js';
import { runBuiltin } from '../src/engine/resumable.js';
import { builtinUnit } from '../src/engine/builtins.js';
import '../src/primitives/prims-lists.js';
import '../src/primitives/prims-strings.js';
import '../src/primitives/prims-vectors.js';

/** @param {string} name @param {...any} args */
function call(name, ...args) {
  const p = primitives.get(name);
  if (!p && builtinUnit.lamsByName.has(name)) return runBuiltin(name, args); // a resumable builtin
  assert.ok(p, `${name} is registered`);
  return p.fn(...args);
}

const X = Char.of(0x78);

/** Walkers: name → call with a list whose elements are all the char x (never found by searches). */
/** @type {Record<string, (l: any) => any>} */
const walkers = {
  length: (l) => call('length', l),
  'list?': (l) => call('list?', l),
  append: (l) => call('append', l, null),
  reverse: (l) => call('reverse', l),
  'list-copy': (l) => call('list-copy', l),
  memq: (l) => call('memq', 'absent', l),
  memv: (l) => call('memv', 'absent', l),
  '%member': (l) => call('%member', 'absent', l),
  assq: (l) => call('assq', 'absent', l),
  assv: (l) => call('assv', 'absent', l),
  '%assoc': (l) => call('%assoc', 'absent', l),
  'list->string': (l) => call('list->string', l),
  'list->vector': (l) => call('list->vector', l),
};

/** A list of n elements (pairs for the alist walkers, chars otherwise). @param {number} n @param {string} name */
function elements(n, name) {
  return Array.from({ length: n }, () => (name.startsWith('ass') || name === '%assoc' ? new Pair(X, X) : X));
}

test('list walkers accept every proper list from 0 to 40 elements', () => {
  for (const [name, walk] of Object.entries(walkers)) {
    for (let n = 0; n <= 40; n++) {
      const l = list(...elements(n, name));
      const r = walk(l);
      if (name === 'length') assert.equal(r, n);
      if (name === 'list?') assert.equal(r, true);
    }
  }
});

test('list walkers signal an error for every cycle shape (prefix 0–20, cycle 1–20)', () => {
  for (const [name, walk] of Object.entries(walkers)) {
    for (let prefix = 0; prefix <= 20; prefix++) {
      for (let cycle = 1; cycle <= 20; cycle++) {
        const l = list(...elements(prefix + cycle, name));
        let last = /** @type {any} */ (l);
        let start = /** @type {any} */ (l);
        for (let i = 0; i < prefix + cycle - 1; i++) last = last.cdr;
        for (let i = 0; i < prefix; i++) start = start.cdr;
        last.cdr = start;
        if (name === 'list?') {
          assert.equal(walk(l), false, `${name} ${prefix}+${cycle}`);
          continue;
        }
        assert.throws(() => walk(l), (e) => e instanceof SchemeError && /cyclic/.test(e.payload.message), `${name} ${prefix}+${cycle}`);
      }
    }
  }
});
