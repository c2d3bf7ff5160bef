// @ts-check
/**
 * Unicode character properties and case mappings for the char and string primitives.
 *
 * Case conversion is delegated to the JS engine (`toUpperCase` / `toLowerCase`, which follow
 * the Unicode version of the engine's ICU), so no large tables are carried here:
 *
 *  - the *simple* (one code point → one code point) mappings used by `char-upcase`,
 *    `char-downcase` and `char-foldcase` take the engine's full mapping of the single
 *    character and keep it only when it is a single code point; otherwise the character
 *    is returned unchanged (`(char-upcase #\ß)` is `#\ß`);
 *  - simple case folding is `lower(upper(c))`, which equals CaseFolding.txt (status C+S)
 *    for every code point except the exceptions below. This was checked exhaustively
 *    against Unicode 14's CaseFolding.txt (Perl's Unicode::UCD, see the test): the only
 *    differences were U+0131, Cherokee, and case pairs added after Unicode 14, where the
 *    rule gives the newer, correct answer;
 *  - full case folding (string-foldcase) is `lower(upper(c))` per code point, which is
 *    also CaseFolding.txt (C+F) apart from the same exceptions and U+1E9E ẞ → "ss".
 *    It is applied per code point, never to the whole string, because `toLowerCase` of a
 *    whole string applies the final-sigma rule, which folding must not.
 *
 * Exceptions:
 *  - U+0131 (dotless ı) has no folding; `lower(upper(ı))` would give "i".
 *  - Cherokee folds to the *uppercase* letters U+13A0–U+13F5 (Unicode 8 added the
 *    lowercase ones and kept folding stable).
 */

const ALPHABETIC = /^\p{Alphabetic}$/u;
const NUMERIC = /^\p{Nd}$/u;
const WHITESPACE = /^\p{White_Space}$/u;
const UPPER = /^\p{Uppercase}$/u;
const LOWER = /^\p{Lowercase}$/u;

/** @param {number} cp */
const str = (cp) => String.fromCodePoint(cp);

/** @param {number} cp a Unicode scalar value */
export const isAlphabetic = (cp) => ALPHABETIC.test(str(cp));
/** @param {number} cp  (R7RS char-numeric?: general category Nd) */
export const isNumeric = (cp) => NUMERIC.test(str(cp));
/** @param {number} cp */
export const isWhitespace = (cp) => WHITESPACE.test(str(cp));
/** @param {number} cp */
export const isUpperCase = (cp) => UPPER.test(str(cp));
/** @param {number} cp */
export const isLowerCase = (cp) => LOWER.test(str(cp));

/**
 * The code point of `s` if it is exactly one code point, else -1.
 * @param {string} s
 */
function single(s) {
  const cp = /** @type {number} */ (s.codePointAt(0));
  return s.length === (cp > 0xffff ? 2 : 1) ? cp : -1;
}

/**
 * Simple uppercase mapping: the character unchanged when its uppercase is several characters.
 * @param {number} cp
 */
export function upcase(cp) {
  if (cp < 0x80) return cp >= 0x61 && cp <= 0x7a ? cp - 32 : cp;
  const u = single(str(cp).toUpperCase());
  return u < 0 ? cp : u;
}

/**
 * Simple lowercase mapping: the character unchanged when its lowercase is several characters.
 * @param {number} cp
 */
export function downcase(cp) {
  if (cp < 0x80) return cp >= 0x41 && cp <= 0x5a ? cp + 32 : cp;
  const l = single(str(cp).toLowerCase());
  return l < 0 ? cp : l;
}

/** @param {number} cp */
const isCherokeeUpper = (cp) => cp >= 0x13a0 && cp <= 0x13f5;

/**
 * Simple case folding (CaseFolding.txt statuses C and S).
 * @param {number} cp
 */
export function foldcase(cp) {
  if (cp < 0x80) return cp >= 0x41 && cp <= 0x5a ? cp + 32 : cp;
  if (cp === 0x131) return cp;
  const u = upcase(cp);
  if (isCherokeeUpper(u)) return u;
  return downcase(u);
}

/**
 * Full case folding of one code point (CaseFolding.txt statuses C and F), as a string.
 * @param {number} cp
 */
function foldFull(cp) {
  if (cp === 0x131) return 'ı';
  if (cp === 0x1e9e) return 'ss';
  const up = str(cp).toUpperCase();
  const u = single(up);
  if (u >= 0 && isCherokeeUpper(u)) return up;
  // Lowercase each code point of the uppercase separately (no final-sigma context).
  if (u >= 0) return up.toLowerCase();
  let out = '';
  for (const c of up) out += c.toLowerCase();
  return out;
}

const ASCII = /^[\x00-\x7f]*$/;

/**
 * Full Unicode case folding of a string (R7RS string-foldcase).
 * @param {string} s
 */
export function foldcaseString(s) {
  if (ASCII.test(s)) return s.toLowerCase();
  let out = '';
  for (const c of s) {
    const cp = /** @type {number} */ (c.codePointAt(0));
    out += cp < 0x80 ? c.toLowerCase() : foldFull(cp);
  }
  return out;
}

/**
 * The value 0–9 of a decimal digit (general category Nd, any script), or -1.
 * Unicode guarantees that Nd characters come in contiguous runs of ten, from 0 to 9, so
 * the value is the distance from the start of the run, modulo 10.
 * @param {number} cp
 */
export function digitValue(cp) {
  if (cp >= 0x30 && cp <= 0x39) return cp - 0x30;
  if (!isNumeric(cp)) return -1;
  let start = cp;
  while (start > 0 && isNumeric(start - 1)) start--;
  return (cp - start) % 10;
}
