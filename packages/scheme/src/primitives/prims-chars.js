// @ts-check
/**
 * R7RS §6.6 characters. A character is an interned `Char` holding one Unicode scalar value
 * (values.js), so comparisons are on code points and eq? works on characters.
 *
 * Character classes and case mappings are Unicode's (unicode.js): `char-alphabetic?` is the
 * Alphabetic property, `char-numeric?` is general category Nd (any script's decimal digit),
 * `char-whitespace?` is White_Space; `char-upcase` / `char-downcase` / `char-foldcase` are the
 * simple (one to one) mappings, so `(char-upcase #\ß)` is `#\ß`.
 */
import { Char, schemeErrorOf } from '../values.js';
import { definePrimitive } from '../engine/registry.js';
import { typeError, isExactInt } from './prims-errors.js';
import * as U from './unicode.js';

/** @param {string} who @param {any} c @returns {number} the code point */
function code(who, c) {
  if (c instanceof Char) return c.code;
  return typeError(who, 'a character', c);
}

/**
 * Register a variadic comparison on the code points of characters, mapped through `key`.
 * @param {string} name @param {(a: number, b: number) => boolean} ok @param {(cp: number) => number} key
 */
function defineCompare(name, ok, key) {
  definePrimitive(
    name,
    2,
    -1,
    (/** @type {any[]} */ ...cs) => {
      const ks = cs.map((c) => key(code(name, c)));
      for (let i = 1; i < ks.length; i++) if (!ok(ks[i - 1], ks[i])) return false;
      return true;
    },
    { pure: true },
  );
}

/** @type {[string, (a: number, b: number) => boolean][]} */
const orders = [
  ['=', (a, b) => a === b],
  ['<', (a, b) => a < b],
  ['>', (a, b) => a > b],
  ['<=', (a, b) => a <= b],
  ['>=', (a, b) => a >= b],
];
for (const [op, ok] of orders) {
  defineCompare(`char${op}?`, ok, (cp) => cp);
  defineCompare(`char-ci${op}?`, ok, U.foldcase);
}

/**
 * Register a predicate on the code point of a character.
 * @param {string} name @param {(cp: number) => boolean} test
 */
function definePredicate(name, test) {
  definePrimitive(name, 1, 1, (/** @type {any} */ c) => test(code(name, c)), { pure: true });
}
definePrimitive('char?', 1, 1, (/** @type {any} */ x) => x instanceof Char, { pure: true });
definePredicate('char-alphabetic?', U.isAlphabetic);
definePredicate('char-numeric?', U.isNumeric);
definePredicate('char-whitespace?', U.isWhitespace);
definePredicate('char-upper-case?', U.isUpperCase);
definePredicate('char-lower-case?', U.isLowerCase);

definePrimitive(
  'digit-value',
  1,
  1,
  (/** @type {any} */ c) => {
    const v = U.digitValue(code('digit-value', c));
    return v < 0 ? false : v;
  },
  { pure: true },
);

definePrimitive('char->integer', 1, 1, (/** @type {any} */ c) => code('char->integer', c), { pure: true });

definePrimitive(
  'integer->char',
  1,
  1,
  (/** @type {any} */ n) => {
    if (typeof n === 'number' && Number.isInteger(n) && n >= 0 && n <= 0x10ffff && (n < 0xd800 || n > 0xdfff)) return Char.of(n);
    if (!isExactInt(n)) typeError('integer->char', 'an exact integer', n);
    return schemeErrorOf('range', 'integer->char', 'not a Unicode scalar value (0 to #x10FFFF, not a surrogate)', n);
  },
  { pure: true },
);

/**
 * Register a case mapping from character to character.
 * @param {string} name @param {(cp: number) => number} map
 */
function defineCaseMap(name, map) {
  definePrimitive(name, 1, 1, (/** @type {any} */ c) => Char.of(map(code(name, c))), { pure: true });
}
defineCaseMap('char-upcase', U.upcase);
defineCaseMap('char-downcase', U.downcase);
defineCaseMap('char-foldcase', U.foldcase);
