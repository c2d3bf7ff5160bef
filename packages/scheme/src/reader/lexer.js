// @ts-check
/**
 * The reader's scanner: character classes, atmosphere (whitespace and comments), and
 * atoms (identifiers and numbers, everything up to the next delimiter).
 *
 * Invariants: positions are UTF-16 indices into `r.text`; each function leaves `r.pos` just
 * after what it consumed. A token that starts like a number (digit, sign, dot) is a
 * number if it parses as one, a read error if it is numeric syntax we cannot represent
 * (`1+2i`, `1/0`), and an identifier otherwise (`1+`, `->x`, `...`). A lone `.` is the DOT
 * token, not a symbol.
 */
import { Sym } from '../values.js';
import { scanNumber } from '../numbers.js';

/** @typedef {import('../reader.js').Reader} Reader */

// Character classes for ASCII: 1 = delimiter (ends an identifier, number or #-token).
const DELIM = new Uint8Array(128);
for (const c of ' \t\n\v\f\r()[]";|') DELIM[c.charCodeAt(0)] = 1;

const WHITE_RE = /\s/;
/** @param {number} c a UTF-16 unit >= 128 */
export function isWideSpace(c) {
  return WHITE_RE.test(String.fromCharCode(c));
}
/** @param {number} c a UTF-16 unit */
export function isDelimiter(c) {
  return c < 128 ? DELIM[c] === 1 : isWideSpace(c);
}

/** @param {number} c */
export function isLineEnd(c) {
  return c === 10 || c === 13;
}

/** Case folding for #!fold-case identifiers and character names. @param {string} s */
export function foldCase(s) {
  return /[A-Z\u0080-\uffff]/.test(s) ? s.toLowerCase() : s;
}

/** Marks a lone `.` token. */
export const DOT = Symbol('dot');

/**
 * Skip whitespace and comments (line and block; `#;` is handled by the parser).
 * @param {Reader} r
 * @returns {number} the code of the next significant character, or -1 at the end
 */
export function skipAtmosphere(r) {
  const s = r.text;
  const n = s.length;
  let i = r.pos;
  for (;;) {
    if (i >= n) {
      r.pos = i;
      return -1;
    }
    const c = s.charCodeAt(i);
    if (c === 32 || (c >= 9 && c <= 13)) {
      i++;
    } else if (c === 59) {
      // ; to the end of the line
      i++;
      while (i < n && !isLineEnd(s.charCodeAt(i))) i++;
    } else if (c === 35 && s.charCodeAt(i + 1) === 124) {
      i = skipBlockComment(r, i);
    } else if (c >= 128 && isWideSpace(c)) {
      i++;
    } else {
      r.pos = i;
      return c;
    }
  }
}

/**
 * Skip a nested `#| ... |#` comment starting at `start`; returns the index after it.
 * @param {Reader} r @param {number} start
 */
export function skipBlockComment(r, start) {
  const s = r.text;
  const n = s.length;
  let depth = 1;
  let i = start + 2;
  while (depth > 0) {
    if (i >= n) r.unterminated('block comment `#|`', start);
    const c = s.charCodeAt(i);
    if (c === 124 && s.charCodeAt(i + 1) === 35) {
      depth--;
      i += 2;
    } else if (c === 35 && s.charCodeAt(i + 1) === 124) {
      depth++;
      i += 2;
    } else i++;
  }
  return i;
}

/**
 * An identifier or a number: everything up to the next delimiter.
 * @param {Reader} r @param {number} start
 */
export function readAtom(r, start) {
  const s = r.text;
  const n = s.length;
  let i = start;
  // Fast path: a short unsigned decimal integer, read without making a token string.
  let v = 0;
  let c = 0;
  while (i < n && (c = s.charCodeAt(i)) >= 48 && c <= 57) {
    v = v * 10 + (c - 48);
    i++;
  }
  if (i > start && i - start <= 15 && (i === n || (c < 128 ? DELIM[c] === 1 : isWideSpace(c)))) {
    r.pos = i;
    return v;
  }
  while (i < n) {
    c = s.charCodeAt(i);
    if (c < 128 ? DELIM[c] === 1 : isWideSpace(c)) break;
    i++;
  }
  r.pos = i;
  const tok = s.slice(start, i);
  const c0 = tok.charCodeAt(0);
  if ((c0 >= 48 && c0 <= 57) || c0 === 43 || c0 === 45 || c0 === 46) {
    if (tok === '.') return DOT;
    const v = scanNumber(tok, 10);
    if (v !== false) {
      if (typeof v === 'string') r.fail(`${v}: \`${tok}\``, start);
      return v;
    }
  }
  return Sym.intern(r.foldCase ? foldCase(tok) : tok);
}
