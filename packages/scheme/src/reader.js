// @ts-check
/**
 * The reader: R7RS lexical syntax (R7RS §2, §7.1.1) to Scheme data. This file is the
 * parser (an explicit stack of open constructs, fed one token at a time), the `#` syntax,
 * and positions and errors; the mechanisms it drives are in reader/:
 *   reader/lexer.js            character classes, whitespace and comments, identifiers and numbers
 *   reader/literals.js         characters, strings and |symbols|, with their escapes
 *   reader/parse-stack.js      the frames of the open constructs
 *   reader/datum-labels.js     `#n=` and `#n#`: shared structure and cycles
 *   reader/source-locations.js where each list and vector read starts (`locationOf`)
 *
 * Invariants and decisions:
 *  - No JS recursion: nested data are built with an explicit stack of frames, so a
 *    1,000,000-element list or 100,000 levels of nesting read fine.
 *  - The text is a JS string (already decoded); characters, identifiers and columns are
 *    counted in code points, never UTF-16 units. LF, CRLF and a lone CR each end a line.
 *  - Positions are computed lazily: the scanner keeps a UTF-16 index only, and `locate`
 *    turns an index into line/column by scanning forward from the last index it located
 *    (monotonic, so the total cost is linear; an error may restart it from the start).
 *  - Every pair that starts a list (including the `(quote x)` made from `'x`) and every
 *    vector and bytevector is recorded with its {file, line, col} (see `locationOf` and
 *    the note on generations in reader/source-locations.js). Data are not frozen (the
 *    compiler freezes quoted constants).
 *  - `[` `]` are accepted as parentheses; a `[` must be closed by `]`.
 *  - Datum labels (`#0=`, `#0#`) are scoped to one top-level datum; a reference to a label
 *    whose datum is still being read gets a placeholder that is patched afterwards, which
 *    is how cyclic data are built.
 *  - A token that starts like a number (digit, sign, dot) is a number if it parses as one;
 *    if it is numeric syntax we cannot represent (`1+2i`, `1/0`) that is a read error;
 *    otherwise it is an identifier (`1+`, `->x`, `...`). A `#` token that is not valid
 *    syntax (`#x1g`, `#foo`) is an error.
 *  - Line endings inside string literals and |symbols| are read as a single linefeed.
 *  - Errors are Scheme errors of kind 'read', who 'read', with "file:line:col" in both the
 *    message and `ErrorObject.loc`.
 */
import { Pair, Sym, EOF, DEFAULT, VOID, ErrorObject, SchemeError } from './values.js';
import { scanNumber } from './numbers.js';
import { setLocation } from './reader/source-locations.js';
import { isDelimiter, isLineEnd, DOT, skipAtmosphere, readAtom } from './reader/lexer.js';
import { readChar, readString, readDelimited } from './reader/literals.js';
import {
  F_LIST, F_VECTOR, F_BYTES, F_ABBREV, F_LABEL, F_COMMENT, FrameStack, NOTHING,
} from './reader/parse-stack.js';
import { readLabel, patchLabels } from './reader/datum-labels.js';

export { locationOf, setLocation } from './reader/source-locations.js';

/** @typedef {import('./reader/source-locations.js').SourceLocation} SourceLocation */
/** @typedef {import('./reader/parse-stack.js').Frame} Frame */
/** @typedef {import('./reader/datum-labels.js').Placeholder} Placeholder */

const QUOTE = Sym.intern('quote');
const QUASIQUOTE = Sym.intern('quasiquote');
const UNQUOTE = Sym.intern('unquote');
const UNQUOTE_SPLICING = Sym.intern('unquote-splicing');

/** Returned by the internal reader at the end of the text (distinct from a read `#!eof`). */
const END = Symbol('end of input');

/** Reads data one at a time from a string. */
export class Reader {
  /**
   * @param {string} text the source text
   * @param {{file?: string, foldCase?: boolean, locations?: boolean}} [opts]
   *   `locations: false` skips recording where each list and vector starts (faster; for
   *   `read` on ports, whose data need no source locations)
   */
  constructor(text, { file = '<string>', foldCase = false, locations = true } = {}) {
    this.text = text;
    this.file = file;
    this.foldCase = foldCase;
    this.recordLocations = locations;
    /** UTF-16 index of the next character to read */
    this.pos = 0;
    // Lazy line/column cache: the position `locPos` is at line `locLine`, column `locCol`.
    this.locPos = 0;
    this.locLine = 1;
    this.locCol = 1;
    this.stack = new FrameStack();
    /** @type {Map<number, Placeholder>|null} datum labels of the current top-level datum */
    this.labels = null;
    this.patchNeeded = false;
    if (text.charCodeAt(0) === 0xfeff) this.pos = 1; // byte order mark
    if (text.startsWith('#!/', this.pos) || text.startsWith('#! ', this.pos)) {
      // A script's "#!/usr/bin/env ..." line.
      while (this.pos < text.length && !isLineEnd(text.charCodeAt(this.pos))) this.pos++;
    }
  }

  /** The UTF-16 offset of the next unread character. */
  get offset() {
    return this.pos;
  }

  /** The next datum, or the EOF object at the end of the text. */
  read() {
    const v = this.readDatum();
    return v === END ? EOF : v;
  }

  // -------------------------------------------------------------------------------------
  // Locations and errors

  /**
   * Line and column (1-based, columns in code points) of a UTF-16 index.
   * @param {number} pos @returns {SourceLocation}
   */
  locate(pos) {
    const s = this.text;
    if (pos < this.locPos) {
      this.locPos = 0;
      this.locLine = 1;
      this.locCol = 1;
    }
    let line = this.locLine;
    let col = this.locCol;
    for (let i = this.locPos; i < pos; i++) {
      const c = s.charCodeAt(i);
      if (c === 10) {
        if (i > 0 && s.charCodeAt(i - 1) === 13) continue; // CRLF: counted at the CR
        line++;
        col = 1;
      } else if (c === 13) {
        line++;
        col = 1;
      } else if ((c & 0xfc00) !== 0xdc00 || i === 0 || (s.charCodeAt(i - 1) & 0xfc00) !== 0xd800) {
        col++; // a low surrogate after a high one is part of the same code point
      }
    }
    this.locPos = pos;
    this.locLine = line;
    this.locCol = col;
    return { file: this.file, line, col };
  }

  /** @param {number} pos */
  locString(pos) {
    const l = this.locate(pos);
    return `${l.file}:${l.line}:${l.col}`;
  }

  /**
   * Throw a read error "<message> at file:line:col".
   * @param {string} message @param {number} pos @returns {never}
   */
  fail(message, pos) {
    const loc = this.locString(pos);
    return raise(`${message} at ${loc}`, loc);
  }

  /**
   * Throw "unterminated <what> starting at file:line:col".
   * @param {string} what @param {number} pos @returns {never}
   */
  unterminated(what, pos) {
    const loc = this.locString(pos);
    return raise(`unterminated ${what} starting at ${loc}`, loc);
  }

  // -------------------------------------------------------------------------------------
  // The parser: an explicit stack of open constructs.

  /** @returns {any} the next datum, or END */
  readDatum() {
    this.labels = null;
    this.patchNeeded = false;
    const stack = this.stack;
    stack.n = 0;
    const s = this.text;
    for (;;) {
      const c = skipAtmosphere(this);
      const start = this.pos;
      /** @type {any} */
      let value;
      if (c < 0) {
        if (stack.n === 0) return END;
        this.failAtEnd(stack);
      }
      switch (c) {
        case 40: // (
        case 91: {
          // [
          this.pos++;
          const f = stack.push(F_LIST, start, this.recordLocations ? this.locate(start) : null);
          f.close = c === 40 ? 41 : 93;
          continue;
        }
        case 41: // )
        case 93: // ]
          this.pos++;
          value = this.closeFrame(stack, c, start);
          break;
        case 39: // '
          this.pos++;
          this.abbrev(QUOTE, start);
          continue;
        case 96: // `
          this.pos++;
          this.abbrev(QUASIQUOTE, start);
          continue;
        case 44: // ,
          if (s.charCodeAt(start + 1) === 64) {
            this.pos += 2;
            this.abbrev(UNQUOTE_SPLICING, start);
          } else {
            this.pos++;
            this.abbrev(UNQUOTE, start);
          }
          continue;
        case 34: // "
          value = readString(this, start);
          break;
        case 124: // |
          value = Sym.intern(readDelimited(this, start, 124, 'symbol'));
          break;
        case 35: // #
          value = this.readHash(stack, start);
          if (value === NOTHING) continue;
          break;
        default:
          value = readAtom(this, start);
          if (value === DOT) {
            const top = stack.top();
            if (top === null || top.kind !== F_LIST || top.head === null || top.dot !== 0) {
              this.fail('unexpected `.`', start);
            }
            top.dot = 1;
            continue;
          }
      }
      const datum = this.deliver(stack, value, start);
      if (datum !== NOTHING) return datum;
    }
  }

  /**
   * Deliver a datum to the innermost open construct; a construct that was waiting for
   * one datum (`'x`, `#n=`, `#;`) closes and passes its result outward in turn.
   * @param {FrameStack} stack @param {any} value @param {number} start where `value` starts
   * @returns {any} the complete top-level datum, or NOTHING while constructs stay open
   */
  deliver(stack, value, start) {
    for (;;) {
      if (stack.n === 0) return this.patchNeeded ? patchLabels(value) : value;
      const f = stack.frames[stack.n - 1];
      if (f.kind === F_LIST) {
        if (f.dot === 0) {
          const p = new Pair(value, null);
          if (f.tail === null) {
            f.head = p;
            if (f.loc !== null) setLocation(p, f.loc);
          } else f.tail.cdr = p;
          f.tail = p;
        } else if (f.dot === 1) {
          /** @type {Pair} */ (f.tail).cdr = value;
          f.dot = 2;
        } else this.fail('expected `)` after the datum that follows `.`', start);
        break;
      }
      if (f.kind === F_VECTOR) {
        f.items.push(value);
        break;
      }
      if (f.kind === F_BYTES) {
        if (typeof value !== 'number' || value < 0 || value > 255) {
          this.fail('a bytevector element must be an exact integer from 0 to 255', start);
        }
        f.items.push(value);
        break;
      }
      stack.pop();
      if (f.kind === F_ABBREV) {
        value = new Pair(f.tag, new Pair(value, null));
        if (f.loc !== null) setLocation(value, f.loc);
        continue;
      }
      if (f.kind === F_LABEL) {
        const ph = /** @type {Map<number, Placeholder>} */ (/** @type {unknown} */ (this.labels)).get(f.tag);
        if (value === ph) this.fail(`datum label #${f.tag}= refers only to itself`, f.pos);
        /** @type {Placeholder} */ (ph).value = value;
        /** @type {Placeholder} */ (ph).done = true;
        continue;
      }
      // F_COMMENT: drop the datum; go on reading.
      break;
    }
    return NOTHING;
  }

  /**
   * @param {Sym} sym @param {number} start
   */
  abbrev(sym, start) {
    const f = this.stack.push(F_ABBREV, start, this.recordLocations ? this.locate(start) : null);
    f.tag = sym;
  }

  /**
   * A closing parenthesis or bracket: finish the innermost list, vector or bytevector.
   * @param {FrameStack} stack @param {number} c @param {number} start
   */
  closeFrame(stack, c, start) {
    const ch = c === 41 ? ')' : ']';
    const f = stack.top();
    if (f === null) return this.fail(`unexpected \`${ch}\``, start);
    if (f.kind === F_LIST) {
      if (c !== f.close) {
        const opened = this.locString(f.pos);
        this.fail(
          `unexpected \`${ch}\` (the list opened with \`${f.close === 41 ? '(' : '['}\` at ${opened} needs \`${f.close === 41 ? ')' : ']'}\`)`,
          start,
        );
      }
      if (f.dot === 1) this.fail('expected a datum after `.`', start);
      const head = f.head;
      stack.pop();
      return head;
    }
    if (f.kind === F_VECTOR || f.kind === F_BYTES) {
      if (c !== 41) this.fail(`unexpected \`${ch}\` (a ${f.kind === F_VECTOR ? 'vector' : 'bytevector'} ends with \`)\`)`, start);
      stack.pop();
      if (f.kind === F_VECTOR) {
        const v = f.items;
        if (f.loc !== null) setLocation(v, f.loc);
        return v;
      }
      const b = Uint8Array.from(f.items);
      if (f.loc !== null) setLocation(b, f.loc);
      return b;
    }
    const what = f.kind === F_COMMENT ? '#;' : f.kind === F_LABEL ? `#${f.tag}=` : abbrevText(f.tag);
    return this.fail(`unexpected \`${ch}\` (expected a datum after \`${what}\`)`, start);
  }

  /** End of text inside open constructs. @param {FrameStack} stack @returns {never} */
  failAtEnd(stack) {
    const f = /** @type {Frame} */ (stack.top());
    switch (f.kind) {
      case F_LIST:
        return this.unterminated('list', f.pos);
      case F_VECTOR:
        return this.unterminated('vector', f.pos);
      case F_BYTES:
        return this.unterminated('bytevector', f.pos);
      case F_COMMENT:
        return this.fail('unexpected end of file: expected a datum after `#;`', f.pos);
      case F_LABEL:
        return this.fail(`unexpected end of file: expected a datum after \`#${f.tag}=\``, f.pos);
      default:
        return this.fail(`unexpected end of file: expected a datum after \`${abbrevText(f.tag)}\``, f.pos);
    }
  }

  /**
   * A token starting with `#`.
   * @param {FrameStack} stack @param {number} start
   * @returns {any} a datum, or NOTHING when the token pushed a frame or was a directive
   */
  readHash(stack, start) {
    const s = this.text;
    const c1 = s.charCodeAt(start + 1);
    if (c1 === 40) {
      // #(
      this.pos = start + 2;
      stack.push(F_VECTOR, start, this.recordLocations ? this.locate(start) : null);
      return NOTHING;
    }
    if ((c1 === 117 || c1 === 85) && s.startsWith('8(', start + 2)) {
      // #u8(
      this.pos = start + 4;
      stack.push(F_BYTES, start, this.recordLocations ? this.locate(start) : null);
      return NOTHING;
    }
    if (c1 === 92) return readChar(this, start); // #\
    if (c1 === 59) {
      // #;
      this.pos = start + 2;
      stack.push(F_COMMENT, start, null);
      return NOTHING;
    }
    if (c1 >= 48 && c1 <= 57) return readLabel(this, stack, start);
    // #!directive, #t, #f, #true, #false, #x1F, #e1.5, ...
    let i = start + 1;
    while (i < s.length && !isDelimiter(s.charCodeAt(i))) i++;
    this.pos = i;
    const tok = s.slice(start, i);
    if (c1 === 33) return this.directive(tok, start);
    switch (tok.toLowerCase()) {
      case '#t':
      case '#true':
        return true;
      case '#f':
      case '#false':
        return false;
    }
    if (/^#[xXbBoOdDeEiI]/.test(tok)) {
      const v = scanNumber(tok, 10);
      if (typeof v === 'string') this.fail(`${v}: \`${tok}\``, start);
      if (v === false) this.fail(`bad number syntax \`${tok}\``, start);
      return v;
    }
    if (tok === '#') this.fail('unexpected `#`', start);
    return this.fail(`bad syntax \`${tok}\``, start);
  }

  /** @param {string} tok @param {number} start */
  directive(tok, start) {
    switch (tok) {
      case '#!fold-case':
        this.foldCase = true;
        return NOTHING;
      case '#!no-fold-case':
        this.foldCase = false;
        return NOTHING;
      case '#!eof':
        return EOF;
      case '#!default':
        return DEFAULT;
      case '#!void':
        return VOID;
    }
    return this.fail(`unknown directive \`${tok}\``, start);
  }

}

/** @param {any} sym */
function abbrevText(sym) {
  return sym === QUOTE ? "'" : sym === QUASIQUOTE ? '`' : sym === UNQUOTE ? ',' : ',@';
}

/**
 * Throw a read error. @param {string} message @param {string} loc
 * @returns {never}
 */
function raise(message, loc) {
  const e = new ErrorObject(message, null, 'read', 'read');
  e.loc = loc;
  throw new SchemeError(e);
}

/**
 * All the data in a text.
 * @param {string} text @param {{file?: string, foldCase?: boolean, locations?: boolean}} [opts]
 * @returns {any[]}
 */
export function readAll(text, opts) {
  const r = new Reader(text, opts);
  const out = [];
  for (;;) {
    const v = r.readDatum();
    if (v === END) return out;
    out.push(v);
  }
}
