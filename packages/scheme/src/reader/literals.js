// @ts-check
/**
 * Literals with escapes: characters (`#\a`, `#\space`, `#\x41`), strings and |symbols|.
 *
 * Invariants: a `\x<hex>;` escape or `#\x<hex>` character must denote a Unicode scalar
 * value (no surrogates, at most #x10FFFF); line endings inside a string or |symbol| are
 * read as a single linefeed; `\<whitespace><line ending><whitespace>` is skipped in
 * strings only. Each function leaves `r.pos` just after the literal.
 */
import { Char } from '../values.js';
import { isDelimiter, isLineEnd, foldCase } from './lexer.js';

/** @typedef {import('../reader.js').Reader} Reader */

/** @type {Record<string, number>} */
const CHAR_NAMES = {
  alarm: 7,
  backspace: 8,
  delete: 127,
  escape: 27,
  newline: 10,
  null: 0,
  return: 13,
  space: 32,
  tab: 9,
};

/**
 * A character `#\a`, `#\space`, `#\x41`, `#\😀`.
 * @param {Reader} r @param {number} start
 */
export function readChar(r, start) {
  const s = r.text;
  const n = s.length;
  const i = start + 2;
  if (i >= n) r.fail('unexpected end of file after `#\\`', start);
  const cp = /** @type {number} */ (s.codePointAt(i));
  const after = i + (cp > 0xffff ? 2 : 1);
  let j = after;
  if (!isDelimiter(cp < 0x10000 ? cp : 65)) {
    while (j < n && !isDelimiter(s.charCodeAt(j))) j++;
  }
  r.pos = j;
  if (j === after) return Char.of(cp);
  const name = s.slice(i, j);
  if ((cp === 120 || (cp === 88 && r.foldCase)) && /^[0-9a-fA-F]+$/.test(name.slice(1))) {
    const code = parseInt(name.slice(1), 16);
    if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) {
      r.fail(`\`#\\${name}\` is not a Unicode scalar value`, start);
    }
    return Char.of(code);
  }
  const code = CHAR_NAMES[r.foldCase ? foldCase(name) : name];
  if (code === undefined || !Object.hasOwn(CHAR_NAMES, r.foldCase ? foldCase(name) : name)) {
    r.fail(`bad character name #\\${name}`, start);
  }
  return Char.of(code);
}

/**
 * A string literal "...".
 * @param {Reader} r @param {number} start
 */
export function readString(r, start) {
  const s = r.text;
  const n = s.length;
  let i = start + 1;
  // Fast path: no escapes and no carriage returns.
  while (i < n) {
    const c = s.charCodeAt(i);
    if (c === 34) {
      r.pos = i + 1;
      return s.slice(start + 1, i);
    }
    if (c === 92 || c === 13) break;
    i++;
  }
  return readDelimited(r, start, 34, 'string');
}

/**
 * The contents of a string literal (quote 34) or |symbol| (quote 124), with escapes.
 * @param {Reader} r @param {number} start index of the opening quote @param {number} quote
 * @param {string} what for messages
 * @returns {string}
 */
export function readDelimited(r, start, quote, what) {
  const s = r.text;
  const n = s.length;
  let out = '';
  let i = start + 1;
  let chunk = i;
  for (;;) {
    if (i >= n) r.unterminated(what, start);
    const c = s.charCodeAt(i);
    if (c === quote) {
      r.pos = i + 1;
      return out + s.slice(chunk, i);
    }
    if (c === 13) {
      // CR or CRLF → LF
      out += s.slice(chunk, i) + '\n';
      i += s.charCodeAt(i + 1) === 10 ? 2 : 1;
      chunk = i;
      continue;
    }
    if (c !== 92) {
      i++;
      continue;
    }
    out += s.slice(chunk, i);
    const e = s.charCodeAt(i + 1);
    i += 2;
    switch (e) {
      case 97: out += '\x07'; break; // \a
      case 98: out += '\b'; break;
      case 116: out += '\t'; break;
      case 110: out += '\n'; break;
      case 114: out += '\r'; break;
      case 34: out += '"'; break;
      case 92: out += '\\'; break;
      case 124: out += '|'; break;
      case 120: {
        // \x<hex>;
        let j = i;
        while (j < n && /[0-9a-fA-F]/.test(s[j])) j++;
        if (j === i || s.charCodeAt(j) !== 59) r.fail('bad hex escape (expected `\\x<hex digits>;`)', i - 2);
        const code = parseInt(s.slice(i, j), 16);
        if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) {
          r.fail(`\`\\x${s.slice(i, j)};\` is not a Unicode scalar value`, i - 2);
        }
        out += String.fromCodePoint(code);
        i = j + 1;
        break;
      }
      default: {
        // \ <intraline whitespace>* <line ending> <intraline whitespace>*  (strings only)
        let j = i - 1;
        while (j < n && (s.charCodeAt(j) === 32 || s.charCodeAt(j) === 9)) j++;
        if (quote === 34 && j < n && isLineEnd(s.charCodeAt(j))) {
          j += s.charCodeAt(j) === 13 && s.charCodeAt(j + 1) === 10 ? 2 : 1;
          while (j < n && (s.charCodeAt(j) === 32 || s.charCodeAt(j) === 9)) j++;
          i = j;
          break;
        }
        if (i - 1 >= n) r.unterminated(what, start);
        const bad = String.fromCodePoint(/** @type {number} */ (s.codePointAt(i - 1)));
        r.fail(`unknown escape \`\\${bad}\` in ${what}`, i - 2);
      }
    }
    chunk = i;
  }
}
