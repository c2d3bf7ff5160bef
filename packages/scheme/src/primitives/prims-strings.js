// @ts-check
/**
 * R7RS §6.7 strings, plus string->vector and vector->string (§6.8).
 *
 * Two representations (values.js): an immutable JS string (literals, symbols' names,
 * `number->string`, strings decoded from a tuple) and a mutable `MString` (what
 * `make-string`, `string`, `string-copy`, `substring`, `string-append`, `list->string`,
 * `vector->string` and the case mappings return: a fresh string, as R7RS says). Every
 * procedure that reads a string accepts both (`checkString` gives the text of either);
 * `string-set!`, `string-fill!` and `string-copy!` change an `MString`'s code points and
 * signal "cannot mutate an immutable string" (kind 'immutable') on a JS string.
 * `list->string` and `string->list` work in chunks (resumable builtins,
 * engine/resumable.js). A primitive that makes a string (`make-string`, `string-append`,
 * ...) is refused one longer than the per-call build limit allows (engine.js `built`,
 * 16 characters an element); the copy itself is one call, ~2.5 ns a character.
 * Isolation of processes is kept by the runtime's copy (an `MString` in a message is
 * copied) and by the codec (an `MString` travels by value).
 *
 * Lengths and indices count Unicode code points, not UTF-16 units: "😀" has length 1.
 * A string without surrogates (the common case) has one unit per code point, so its length
 * and indexing are JS's own. For a string with astral characters, `offsets` builds the
 * table of the UTF-16 offset of every code point, and a small cache keeps the tables of
 * the last few long strings used, so a loop of string-ref over a long astral string is
 * O(n) overall, not O(n²). The cache is invisible to programs (a pure memo of immutable
 * values), so it is not shared state in the sense of the primitive contract.
 */
import { Char, Pair, MString, VOID, schemeErrorOf } from '../values.js';
import { definePrimitive } from '../engine/registry.js';
import { charge, walked, built } from '../engine/engine.js';
import { absent, typeError, immutableError, checkIndex, checkRange, checkLength, checkStringSize } from './prims-errors.js';
import { foldcaseString } from './unicode.js';
import { CHUNK, BUILD_CHUNK, more, defineResumable, defineStep, stateCount } from '../engine/resumable.js';

// ---------------------------------------------------------------------------------------
// Code-point indexing.

const SURROGATE = /[\uD800-\uDFFF]/;
/** Strings shorter than this are scanned on each call instead of cached. */
const SHORT = 64;
/** How many long strings' offset tables are kept. */
const CACHE_SIZE = 8;

/**
 * @typedef {object} CacheEntry
 * @property {string} s
 * @property {number} fp  fingerprint(s)
 * @property {Uint32Array|null} table
 */

/**
 * Most recently used first. Not a Map: V8 hashes a very long string by its length only,
 * so a Map would compare near-identical strings of one length character by character on
 * every lookup. Here `===` (O(1) for the same string object) is reached only when the
 * length and a few sampled units already match.
 * @type {CacheEntry[]}
 */
const offsetCache = [];

/**
 * A cheap hash of a long string: its length and five units spread over it (first and last
 * included). Strings that agree on all of these but differ elsewhere are still told apart
 * by `===`, only more slowly.
 * @param {string} s
 */
function fingerprint(s) {
  const n = s.length;
  const q = n >> 2;
  return (((((n * 31 + s.charCodeAt(0)) * 31 + s.charCodeAt(q)) * 31 + s.charCodeAt(2 * q)) * 31 + s.charCodeAt(3 * q)) * 31 + s.charCodeAt(n - 1)) | 0;
}

/**
 * The UTF-16 offset of each code point of `s`, followed by s.length; null when `s` has no
 * surrogates (then code point i is at offset i).
 * @param {string} s
 * @returns {Uint32Array|null}
 */
function offsets(s) {
  if (s.length < SHORT) return SURROGATE.test(s) ? buildOffsets(s) : null;
  const fp = fingerprint(s);
  for (let i = 0; i < offsetCache.length; i++) {
    const e = offsetCache[i];
    if (e.fp === fp && e.s === s) {
      // keep the object asked for: an equal but distinct string matched by comparing every
      // unit, and the next call with the same object then matches at once (V8 compares
      // the pointers first), so a loop over a copy is not O(n) per call
      e.s = s;
      if (i > 0) {
        offsetCache.splice(i, 1);
        offsetCache.unshift(e);
      }
      return e.table;
    }
  }
  const table = SURROGATE.test(s) ? buildOffsets(s) : null;
  charge(walked(s.length >>> (table === null ? 3 : 0))); // a scan, or a scan and a table
  if (offsetCache.length >= CACHE_SIZE) offsetCache.pop();
  offsetCache.unshift({ s, fp, table });
  return table;
}

/** @param {number} u a UTF-16 unit */
const isHigh = (u) => u >= 0xd800 && u <= 0xdbff;
/** @param {number} u a UTF-16 unit */
const isLow = (u) => u >= 0xdc00 && u <= 0xdfff;

/** @param {string} s */
function buildOffsets(s) {
  let n = 0;
  for (let i = 0; i < s.length; i++, n++) if (isHigh(s.charCodeAt(i)) && isLow(s.charCodeAt(i + 1))) i++;
  const table = new Uint32Array(n + 1);
  for (let i = 0, k = 0; i < s.length; i++, k++) {
    table[k] = i;
    if (isHigh(s.charCodeAt(i)) && isLow(s.charCodeAt(i + 1))) i++;
  }
  table[n] = s.length;
  return table;
}

/**
 * The length of `s` in code points.
 * @param {string} s
 */
export function stringLength(s) {
  const t = offsets(s);
  return t === null ? s.length : t.length - 1;
}

/**
 * The UTF-16 offset of code point `k` of `s` (0 <= k <= length; k = length gives s.length).
 * @param {string} s @param {number} k
 */
export function unitOffset(s, k) {
  const t = offsets(s);
  return t === null ? k : t[k];
}

/**
 * The code points [start, end) of `s`, as a string (indices already checked).
 * @param {string} s @param {number} start @param {number} end
 */
export function substringCp(s, start, end) {
  const t = offsets(s);
  return t === null ? s.slice(start, end) : s.slice(t[start], t[end]);
}

/**
 * Compare two strings by code point: negative, zero or positive. JS `<` compares UTF-16
 * units, which puts U+E000–U+FFFF above astral characters; code-point order does not.
 * @param {string} a @param {string} b
 */
export function compareStrings(a, b) {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = n > SKIP_BLOCK ? equalBlocks(a, b, n) : 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return unitRank(x) - unitRank(y);
  }
  return a.length - b.length;
}

/** Units compared natively at a time by equalBlocks. */
const SKIP_BLOCK = 4096;

/**
 * How many leading units of a and b (n of them at most) lie in equal blocks of
 * SKIP_BLOCK units: each block is one native comparison (memory speed, where the loop
 * of compareStrings takes ~1 ns a unit), so a long common prefix does not make one
 * comparison hold the event loop.
 * @param {string} a @param {string} b @param {number} n
 */
function equalBlocks(a, b, n) {
  let i = 0;
  while (i + SKIP_BLOCK <= n && a.slice(i, i + SKIP_BLOCK) === b.slice(i, i + SKIP_BLOCK)) i += SKIP_BLOCK;
  return i;
}

/** @param {number} u a UTF-16 unit; surrogates (astral characters) rank above all BMP units */
const unitRank = (u) => (u < 0xd800 ? u : u < 0xe000 ? u + 0x2000 : u - 0x800);

/**
 * Characters counted as one element by the per-call build limit (engine.js `built`, an
 * element ~40 bytes), as a power of two: 16 UTF-16 units, 32 bytes.
 */
const CHARS_PER_ELEMENT_LOG2 = 4;

/** The longest string V8 can build (2^29 - 24 units). */
const MAX_STRING = 2 ** 29 - 24;

// ---------------------------------------------------------------------------------------
// Argument checks.

/** The text of a string argument (either representation). @param {string} who @param {any} s @returns {string} */
export function checkString(who, s) {
  if (typeof s === 'string') return s;
  if (s instanceof MString) return s.text();
  return typeError(who, 'a string', s);
}

/** A fresh mutable string holding `s`. @param {string} s */
const fresh = (s) => new MString(s);

/** @param {string} who @param {any} c @returns {string} the character as a JS string */
function charText(who, c) {
  if (c instanceof Char) return String.fromCodePoint(c.code);
  return typeError(who, 'a character', c);
}

/**
 * Check optional start/end against a string and return the UTF-16 slice bounds.
 * @param {string} who @param {string} s @param {any} start @param {any} end
 * @returns {[number, number]}
 */
export function unitRange(who, s, start, end) {
  if (absent(start) && absent(end)) return [0, s.length];
  const t = offsets(s);
  const [a, b] = checkRange(who, start, end, t === null ? s.length : t.length - 1);
  return t === null ? [a, b] : [t[a], t[b]];
}

/**
 * Concatenate, signalling a Scheme error instead of a JS RangeError when too long.
 * @param {string} who @param {string[]} parts
 */
function join(who, parts) {
  let n = 0;
  for (const p of parts) n += p.length;
  if (n > MAX_STRING) schemeErrorOf('range', who, 'string too long', n);
  built(n >>> CHARS_PER_ELEMENT_LOG2); // the per-call build limit, refused before the copy
  checkStringSize(who, n); // and the per-call string limit
  charge(walked(n >>> 3) + parts.length);
  return parts.join('');
}

// ---------------------------------------------------------------------------------------
// Constructors and accessors.

/** @param {any} k @param {any} [c] */
function makeString(k, c) {
  const n = checkLength('make-string', k);
  const ch = absent(c) ? ' ' : charText('make-string', c);
  if (n * ch.length > MAX_STRING) schemeErrorOf('range', 'make-string', 'string too long', k);
  built((n * ch.length) >>> CHARS_PER_ELEMENT_LOG2); // the per-call build limit
  checkStringSize('make-string', n * ch.length);
  charge(walked(n >>> 3));
  // as text: the code points are made on the first string-set! (one pass either way),
  // and a string made only to be read is never converted
  return new MString(ch.repeat(n));
}

/** @param {any} s @param {any} k */
function stringRef(s, k) {
  if (s instanceof MString) {
    if (s.cp !== null) return Char.of(s.cp[checkIndex('string-ref', k, s.cp.length)]);
    s = s.text();
  }
  checkString('string-ref', s);
  const t = offsets(s);
  if (t === null) return Char.of(s.charCodeAt(checkIndex('string-ref', k, s.length)));
  const i = checkIndex('string-ref', k, t.length - 1);
  return Char.of(/** @type {number} */ (s.codePointAt(t[i])));
}

const stringToListStep = defineStep('string->list', 4, (/** @type {any} */ s, /** @type {any} */ a, /** @type {any} */ b, /** @type {any} */ l) => {
  const i = stateCount('string->list', a);
  const j = stateCount('string->list', b);
  if (typeof s !== 'string' || i > j || j > s.length) schemeErrorOf('type', 'string->list', 'bad resumption state', a, b);
  return stringToListFrom(s, i, j, l);
});

/**
 * Cons the characters of the UTF-16 units s[a..b) onto l, from the end: at most BUILD_CHUNK
 * characters a call (resumable, engine/resumable.js).
 * @param {string} s @param {number} a @param {number} b @param {any} l
 */
function stringToListFrom(s, a, b, l) {
  let i = b;
  let m = 0;
  for (; i > a && m < BUILD_CHUNK; m++) {
    const u = s.charCodeAt(i - 1);
    if (isLow(u) && i - 2 >= a && isHigh(s.charCodeAt(i - 2))) {
      l = new Pair(Char.of(/** @type {number} */ (s.codePointAt(i - 2))), l);
      i -= 2;
    } else {
      l = new Pair(Char.of(u), l);
      i--;
    }
  }
  charge(built(m));
  return i > a ? more(stringToListStep, [s, a, i, l]) : l;
}

const listToStringStep = defineStep('list->string', 4, (/** @type {any} */ l, /** @type {any} */ parts, /** @type {any} */ x, /** @type {any} */ slow) => {
  if (!Array.isArray(parts) || Object.isFrozen(parts)) schemeErrorOf('type', 'list->string', 'bad resumption state', parts);
  return listToStringFrom(l, parts, x, slow);
});

/**
 * The characters of a proper list of characters, as a string: resumable (engine/resumable.js),
 * at most BUILD_CHUNK characters a call, the characters so far in `parts` (a vector of strings).
 * @param {any} l @param {string[]} parts @param {any} x @param {any} slow
 */
function listToStringFrom(l, parts, x, slow) {
  const stop = parts.length + BUILD_CHUNK;
  for (; x instanceof Pair; x = x.cdr) {
    if (parts.length === stop) {
      checkStringSize('list->string', parts.length); // refused before the rest is walked
      charge(walked(BUILD_CHUNK));
      return more(listToStringStep, [l, parts, x, slow]);
    }
    parts.push(charText('list->string', x.car));
    if ((parts.length & 1) === 0) {
      slow = slow.cdr;
      if (slow === x.cdr) schemeErrorOf('type', 'list->string', 'expected a proper list, got a cyclic list', l);
    }
  }
  if (x !== null) typeError('list->string', 'a proper list of characters', l);
  return fresh(join('list->string', parts));
}

/** @param {any} s @param {any} start @param {any} end */
function stringToVector(s, start, end) {
  s = checkString('string->vector', s);
  const [a, b] = unitRange('string->vector', s, start, end);
  checkStringSize('string->vector', b - a);
  charge(built(b - a));
  return Array.from(s.slice(a, b), (c) => Char.of(/** @type {number} */ (c.codePointAt(0))));
}

/** @param {any} v @param {any} start @param {any} end */
function vectorToString(v, start, end) {
  if (!Array.isArray(v)) typeError('vector->string', 'a vector', v);
  const [a, b] = checkRange('vector->string', start, end, v.length);
  checkStringSize('vector->string', b - a); // refused before the vector is walked
  /** @type {string[]} */
  const parts = [];
  for (let i = a; i < b; i++) parts.push(charText('vector->string', v[i]));
  return join('vector->string', parts);
}

/** @param {any} s @param {any} start @param {any} end */
function stringCopy(s, start, end) {
  s = checkString('string-copy', s);
  const [a, b] = unitRange('string-copy', s, start, end);
  checkStringSize('string-copy', b - a); // a copy is changed, so converted, in one call
  charge(walked((b - a) >>> 3));
  return fresh(s.slice(a, b));
}

/** @param {any} s @param {any} start @param {any} end */
function substring(s, start, end) {
  s = checkString('substring', s);
  const [a, b] = unitRange('substring', s, start, end);
  checkStringSize('substring', b - a);
  charge(walked((b - a) >>> 3));
  return fresh(s.slice(a, b));
}

/** @param {any[]} ss */
function stringAppend(...ss) {
  for (let i = 0; i < ss.length; i++) ss[i] = checkString('string-append', ss[i]);
  return fresh(join('string-append', ss));
}

/**
 * The case mapping `map` of the string argument `s`, as a fresh string; a string longer
 * than one call may make (one received in a message) is refused before it is mapped.
 * @param {string} who @param {any} s @param {(s: string) => string} map
 */
function casedString(who, s, map) {
  const text = checkString(who, s);
  checkStringSize(who, text.length);
  charge(walked(text.length >>> 2));
  return fresh(map(text));
}

/** @param {any[]} cs */
function string(...cs) {
  return fresh(join(
    'string',
    cs.map((c) => charText('string', c)),
  ));
}

// ---------------------------------------------------------------------------------------
// Comparisons.

/**
 * Register a variadic comparison of strings (after mapping each through `key`).
 * @param {string} name @param {(c: number) => boolean} ok on the result of compareStrings
 * @param {(s: string) => string} key
 */
function defineCompare(name, ok, key) {
  definePrimitive(
    name,
    2,
    -1,
    (/** @type {any[]} */ ...ss) => {
      const ks = ss.map((s) => key(checkString(name, s)));
      charge(walked(ks.reduce((n, k) => n + k.length, 0) >>> 3));
      for (let i = 1; i < ks.length; i++) if (!ok(compareStrings(ks[i - 1], ks[i]))) return false;
      return true;
    },
    { pure: true },
  );
}

/** @type {[string, (c: number) => boolean][]} */
const orders = [
  ['=', (c) => c === 0],
  ['<', (c) => c < 0],
  ['>', (c) => c > 0],
  ['<=', (c) => c <= 0],
  ['>=', (c) => c >= 0],
];
for (const [op, ok] of orders) {
  defineCompare(`string${op}?`, ok, (s) => s);
  defineCompare(`string-ci${op}?`, ok, foldcaseString);
}

// ---------------------------------------------------------------------------------------
// The mutators.

/**
 * The code points of a mutable string argument, ready to be written.
 * @param {string} who @param {any} s @returns {number[]}
 */
function writable(who, s) {
  if (s instanceof MString) return s.forWriting();
  if (typeof s === 'string') return immutableError(who, 'cannot mutate an immutable string (a literal, or from symbol->string, number->string or a tuple space; string-copy makes a mutable one)', s);
  return typeError(who, 'a string', s);
}

/** @param {string} who @param {any} c */
function codeOf(who, c) {
  if (c instanceof Char) return c.code;
  return typeError(who, 'a character', c);
}

/** @param {any} s @param {any} k @param {any} c */
function stringSet(s, k, c) {
  const code = codeOf('string-set!', c);
  const cp = writable('string-set!', s);
  cp[checkIndex('string-set!', k, cp.length)] = code;
  return VOID;
}

/** @param {any} s @param {any} c @param {any} start @param {any} end */
function stringFill(s, c, start, end) {
  const code = codeOf('string-fill!', c);
  const cp = writable('string-fill!', s);
  const [a, b] = absent(start) && absent(end) ? [0, cp.length] : checkRange('string-fill!', start, end, cp.length);
  charge(walked((b - a) >>> 3));
  cp.fill(code, a, b);
  return VOID;
}

/**
 * R7RS string-copy!: the source's code points [start, end) into `to` at `at`; correct
 * when source and destination are the same string and overlap.
 * @param {any} to @param {any} at @param {any} from @param {any} start @param {any} end
 */
function stringCopyInto(to, at, from, start, end) {
  const dst = writable('string-copy!', to);
  const src = from instanceof MString ? from.codePoints() : from === to ? dst : new MString(checkString('string-copy!', from)).codePoints();
  const [a, b] = absent(start) && absent(end) ? [0, src.length] : checkRange('string-copy!', start, end, src.length);
  const i = checkIndex('string-copy!', at, dst.length + 1);
  if (dst.length - i < b - a) schemeErrorOf('range', 'string-copy!', 'the destination is too short', to, at);
  charge(walked((b - a) >>> 3));
  if (src === dst && a < i) for (let k = b - a - 1; k >= 0; k--) dst[i + k] = src[a + k];
  else for (let k = 0; k < b - a; k++) dst[i + k] = src[a + k];
  return VOID;
}

// ---------------------------------------------------------------------------------------

// Not `pure`: a mutable string's contents change, and the constructors return fresh strings.
definePrimitive('string?', 1, 1, (/** @type {any} */ x) => typeof x === 'string' || x instanceof MString, { pure: true });
definePrimitive('make-string', 1, 2, makeString);
definePrimitive('string', 0, -1, string);
definePrimitive('string-length', 1, 1, (/** @type {any} */ s) => (s instanceof MString && s.cp !== null ? s.cp.length : stringLength(checkString('string-length', s))));
definePrimitive('string-ref', 2, 2, stringRef);
definePrimitive('substring', 3, 3, substring);
definePrimitive('string-append', 0, -1, stringAppend);
defineResumable('string->list', 1, 2, (/** @type {any} */ s, /** @type {any} */ start, /** @type {any} */ end) => {
  const text = checkString('string->list', s);
  const [a, b] = unitRange('string->list', text, start, end);
  return stringToListFrom(text, a, b, null);
});
defineResumable('list->string', 1, 0, (/** @type {any} */ l) => listToStringFrom(l, [], l, l));
definePrimitive('string-copy', 1, 3, stringCopy);
definePrimitive('string->vector', 1, 3, stringToVector);
definePrimitive('vector->string', 1, 3, (/** @type {any} */ v, /** @type {any} */ a, /** @type {any} */ b) => fresh(vectorToString(v, a, b)));
definePrimitive('string-upcase', 1, 1, (/** @type {any} */ s) => casedString('string-upcase', s, (t) => t.toUpperCase()));
definePrimitive('string-downcase', 1, 1, (/** @type {any} */ s) => casedString('string-downcase', s, (t) => t.toLowerCase()));
definePrimitive('string-foldcase', 1, 1, (/** @type {any} */ s) => casedString('string-foldcase', s, foldcaseString));
definePrimitive('string-set!', 3, 3, stringSet);
definePrimitive('string-fill!', 2, 4, stringFill);
definePrimitive('string-copy!', 3, 5, stringCopyInto);
