// @ts-check
/**
 * The reader: R7RS lexical syntax (R7RS §2, §7.1.1) to Scheme data.
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
 *    the note on generations below). Data are not frozen (the compiler freezes quoted
 *    constants).
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
import { Pair, Sym, Char, EOF, DEFAULT, VOID, ErrorObject, SchemeError } from './values.js';
import { scanNumber } from './numbers.js';

/** @typedef {{file: string, line: number, col: number}} SourceLocation */

// Locations are kept in two generations of strong Maps, not in a WeakMap: V8's WeakMap
// costs 2-3 µs per entry for short-lived keys and its garbage collection degrades badly
// (minutes) past a few million entries. The newest GENERATION entries are always kept,
// the GENERATION before them too; older ones are dropped (and their data may be freed).
// So the locations of the last 500,000 to 1,000,000 lists and vectors read are known,
// which covers any source file the expander is working on. `read` on a port does not
// need locations and should pass `{locations: false}`.
const GENERATION = 500_000;
/** @type {Map<object, SourceLocation>} */
let recentLocations = new Map();
/** @type {Map<object, SourceLocation>} */
let olderLocations = new Map();

/**
 * The source location of a list (its first pair), vector or bytevector read by a Reader.
 * @param {any} obj @returns {SourceLocation|undefined}
 */
export function locationOf(obj) {
  if (obj === null || typeof obj !== 'object') return undefined;
  return recentLocations.get(obj) ?? olderLocations.get(obj);
}

/**
 * Record a location for an object (for example a form the expander builds from a source
 * form, so that errors in it can still be reported at a place in the file).
 * @param {object} obj @param {SourceLocation} loc
 */
export function setLocation(obj, loc) {
  if (recentLocations.size >= GENERATION) {
    olderLocations = recentLocations;
    recentLocations = new Map();
  }
  recentLocations.set(obj, loc);
}

// Character classes for ASCII: 1 = delimiter (ends an identifier, number or #-token).
const DELIM = new Uint8Array(128);
for (const c of ' \t\n\v\f\r()[]";|') DELIM[c.charCodeAt(0)] = 1;

const WHITE_RE = /\s/;
/** @param {number} c a UTF-16 unit >= 128 */
function isWideSpace(c) {
  return WHITE_RE.test(String.fromCharCode(c));
}
/** @param {number} c a UTF-16 unit */
function isDelimiter(c) {
  return c < 128 ? DELIM[c] === 1 : isWideSpace(c);
}

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

const QUOTE = Sym.intern('quote');
const QUASIQUOTE = Sym.intern('quasiquote');
const UNQUOTE = Sym.intern('unquote');
const UNQUOTE_SPLICING = Sym.intern('unquote-splicing');

// Frame kinds of the parse stack.
const F_LIST = 0;
const F_VECTOR = 1;
const F_BYTES = 2;
const F_ABBREV = 3; // 'x `x ,x ,@x: waits for one datum
const F_LABEL = 4; // #n= waits for one datum
const F_COMMENT = 5; // #; waits for one datum and drops it

/** @type {any[]} */
const EMPTY = [];

/** One open construct on the parse stack. */
class Frame {
  /**
   * @param {number} kind @param {number} pos UTF-16 index where it starts
   * @param {SourceLocation|null} loc
   */
  constructor(kind, pos, loc) {
    this.kind = kind;
    this.pos = pos;
    this.loc = loc;
    /** closing character code for lists: `)` or `]` */
    this.close = 41;
    /** @type {Pair|null} */
    this.head = null;
    /** @type {Pair|null} */
    this.tail = null;
    /** 0: elements; 1: after `.`, waiting for the tail; 2: tail read, waiting for `)` */
    this.dot = 0;
    /** @type {any[]} vector / bytevector elements (unused by lists) */
    this.items = kind === F_VECTOR || kind === F_BYTES ? [] : EMPTY;
    /** @type {any} abbreviation symbol, or label number */
    this.tag = null;
  }
}

/**
 * The parse stack. Frames are reused from one list to the next (one object per nesting
 * level), so reading allocates no frame per list.
 */
class FrameStack {
  constructor() {
    /** @type {Frame[]} */
    this.frames = [];
    /** number of open frames */
    this.n = 0;
  }
  /**
   * Open a construct. @param {number} kind @param {number} pos @param {SourceLocation|null} loc
   * @returns {Frame}
   */
  push(kind, pos, loc) {
    let f = this.frames[this.n];
    if (f === undefined) this.frames[this.n] = f = new Frame(kind, pos, loc);
    else {
      f.kind = kind;
      f.pos = pos;
      f.loc = loc;
      f.close = 41;
      f.dot = 0;
      f.items = kind === F_VECTOR || kind === F_BYTES ? [] : EMPTY;
      f.tag = null;
    }
    this.n++;
    return f;
  }
  /** The innermost open frame, or null. */
  top() {
    return this.n > 0 ? this.frames[this.n - 1] : null;
  }
  /** Close the innermost frame; it stays valid until the next push. */
  pop() {
    const f = this.frames[--this.n];
    f.head = null;
    f.tail = null;
    return f;
  }
}

/** A reference to a datum label whose datum is not complete yet. */
class Placeholder {
  /** @param {number} n */
  constructor(n) {
    this.n = n;
    /** @type {any} */
    this.value = this;
    this.done = false;
  }
}

/** Returned by the internal reader at the end of the text (distinct from a read `#!eof`). */
const END = Symbol('end of input');
/** Marks a lone `.` token. */
const DOT = Symbol('dot');
/** Returned by token readers that produced no datum (directives). */
const NOTHING = Symbol('nothing');

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
      const c = this.skipAtmosphere();
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
          value = this.readString(start);
          break;
        case 124: // |
          value = Sym.intern(this.readDelimited(start, 124, 'symbol'));
          break;
        case 35: // #
          value = this.readHash(stack, start);
          if (value === NOTHING) continue;
          break;
        default:
          value = this.readAtom(start);
          if (value === DOT) {
            const top = stack.top();
            if (top === null || top.kind !== F_LIST || top.head === null || top.dot !== 0) {
              this.fail('unexpected `.`', start);
            }
            top.dot = 1;
            continue;
          }
      }
      // Deliver `value` to the innermost open construct.
      for (;;) {
        if (stack.n === 0) return this.patchNeeded ? this.patch(value) : value;
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
    }
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

  // -------------------------------------------------------------------------------------
  // The scanner

  /**
   * Skip whitespace and comments (line and block; `#;` is handled by the parser).
   * @returns {number} the code of the next significant character, or -1 at the end
   */
  skipAtmosphere() {
    const s = this.text;
    const n = s.length;
    let i = this.pos;
    for (;;) {
      if (i >= n) {
        this.pos = i;
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
        i = this.skipBlockComment(i);
      } else if (c >= 128 && isWideSpace(c)) {
        i++;
      } else {
        this.pos = i;
        return c;
      }
    }
  }

  /** Skip a nested `#| ... |#` comment starting at `start`. @param {number} start */
  skipBlockComment(start) {
    const s = this.text;
    const n = s.length;
    let depth = 1;
    let i = start + 2;
    while (depth > 0) {
      if (i >= n) this.unterminated('block comment `#|`', start);
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
   * @param {number} start
   */
  readAtom(start) {
    const s = this.text;
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
      this.pos = i;
      return v;
    }
    while (i < n) {
      c = s.charCodeAt(i);
      if (c < 128 ? DELIM[c] === 1 : isWideSpace(c)) break;
      i++;
    }
    this.pos = i;
    const tok = s.slice(start, i);
    const c0 = tok.charCodeAt(0);
    if ((c0 >= 48 && c0 <= 57) || c0 === 43 || c0 === 45 || c0 === 46) {
      if (tok === '.') return DOT;
      const v = scanNumber(tok, 10);
      if (v !== false) {
        if (typeof v === 'string') this.fail(`${v}: \`${tok}\``, start);
        return v;
      }
    }
    return Sym.intern(this.foldCase ? foldCase(tok) : tok);
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
    if (c1 === 92) return this.readChar(start); // #\
    if (c1 === 59) {
      // #;
      this.pos = start + 2;
      stack.push(F_COMMENT, start, null);
      return NOTHING;
    }
    if (c1 >= 48 && c1 <= 57) return this.readLabel(stack, start);
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

  /**
   * `#n=` (define a label) or `#n#` (refer to one).
   * @param {FrameStack} stack @param {number} start
   */
  readLabel(stack, start) {
    const s = this.text;
    let i = start + 1;
    while (i < s.length && s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57) i++;
    const n = Number(s.slice(start + 1, i));
    const c = s.charCodeAt(i);
    this.pos = i + 1;
    if (c === 61) {
      // =
      if (this.labels === null) this.labels = new Map();
      if (this.labels.has(n)) this.fail(`datum label #${n}= is defined twice`, start);
      this.labels.set(n, new Placeholder(n));
      stack.push(F_LABEL, start, null).tag = n;
      return NOTHING;
    }
    if (c === 35) {
      // #
      const ph = this.labels === null ? undefined : this.labels.get(n);
      if (ph === undefined) this.fail(`datum label #${n}# is not defined`, start);
      if (ph.done) return ph.value;
      this.patchNeeded = true;
      return ph;
    }
    let j = i;
    while (j < s.length && !isDelimiter(s.charCodeAt(j))) j++;
    return this.fail(`bad syntax \`${s.slice(start, j)}\``, start);
  }

  /**
   * Replace the placeholders in a datum by the data their labels denote.
   * @param {any} root
   */
  patch(root) {
    /** @param {any} v */
    const resolve = (v) => {
      let k = 0;
      while (v instanceof Placeholder) {
        v = v.value;
        if (++k > 1e6) throw new Error('datum label cycle');
      }
      return v;
    };
    root = resolve(root);
    const seen = new Set();
    const work = [root];
    while (work.length > 0) {
      let x = work.pop();
      // Walk a list's spine iteratively; cars and vector elements go on the work stack.
      while (x instanceof Pair || Array.isArray(x)) {
        if (seen.has(x)) break;
        seen.add(x);
        if (Array.isArray(x)) {
          for (let i = 0; i < x.length; i++) {
            if (x[i] instanceof Placeholder) x[i] = resolve(x[i]);
            work.push(x[i]);
          }
          break;
        }
        if (x.car instanceof Placeholder) x.car = resolve(x.car);
        if (x.cdr instanceof Placeholder) x.cdr = resolve(x.cdr);
        work.push(x.car);
        x = x.cdr;
      }
    }
    return root;
  }

  /**
   * A character `#\a`, `#\space`, `#\x41`, `#\😀`.
   * @param {number} start
   */
  readChar(start) {
    const s = this.text;
    const n = s.length;
    const i = start + 2;
    if (i >= n) this.fail('unexpected end of file after `#\\`', start);
    const cp = /** @type {number} */ (s.codePointAt(i));
    const after = i + (cp > 0xffff ? 2 : 1);
    let j = after;
    if (!isDelimiter(cp < 0x10000 ? cp : 65)) {
      while (j < n && !isDelimiter(s.charCodeAt(j))) j++;
    }
    this.pos = j;
    if (j === after) return Char.of(cp);
    const name = s.slice(i, j);
    if ((cp === 120 || (cp === 88 && this.foldCase)) && /^[0-9a-fA-F]+$/.test(name.slice(1))) {
      const code = parseInt(name.slice(1), 16);
      if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) {
        this.fail(`\`#\\${name}\` is not a Unicode scalar value`, start);
      }
      return Char.of(code);
    }
    const code = CHAR_NAMES[this.foldCase ? foldCase(name) : name];
    if (code === undefined || !Object.hasOwn(CHAR_NAMES, this.foldCase ? foldCase(name) : name)) {
      this.fail(`bad character name #\\${name}`, start);
    }
    return Char.of(code);
  }

  /**
   * A string literal "...".
   * @param {number} start
   */
  readString(start) {
    const s = this.text;
    const n = s.length;
    let i = start + 1;
    // Fast path: no escapes and no carriage returns.
    while (i < n) {
      const c = s.charCodeAt(i);
      if (c === 34) {
        this.pos = i + 1;
        return s.slice(start + 1, i);
      }
      if (c === 92 || c === 13) break;
      i++;
    }
    return this.readDelimited(start, 34, 'string');
  }

  /**
   * The contents of a string literal (quote 34) or |symbol| (quote 124), with escapes.
   * @param {number} start index of the opening quote @param {number} quote
   * @param {string} what for messages
   * @returns {string}
   */
  readDelimited(start, quote, what) {
    const s = this.text;
    const n = s.length;
    let out = '';
    let i = start + 1;
    let chunk = i;
    for (;;) {
      if (i >= n) this.unterminated(what, start);
      const c = s.charCodeAt(i);
      if (c === quote) {
        this.pos = i + 1;
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
          if (j === i || s.charCodeAt(j) !== 59) this.fail('bad hex escape (expected `\\x<hex digits>;`)', i - 2);
          const code = parseInt(s.slice(i, j), 16);
          if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) {
            this.fail(`\`\\x${s.slice(i, j)};\` is not a Unicode scalar value`, i - 2);
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
          if (i - 1 >= n) this.unterminated(what, start);
          const bad = String.fromCodePoint(/** @type {number} */ (s.codePointAt(i - 1)));
          this.fail(`unknown escape \`\\${bad}\` in ${what}`, i - 2);
        }
      }
      chunk = i;
    }
  }
}

/** @param {number} c */
function isLineEnd(c) {
  return c === 10 || c === 13;
}

/** @param {any} sym */
function abbrevText(sym) {
  return sym === QUOTE ? "'" : sym === QUASIQUOTE ? '`' : sym === UNQUOTE ? ',' : ',@';
}

/** Case folding for #!fold-case identifiers and character names. @param {string} s */
function foldCase(s) {
  return /[A-Z\u0080-\uffff]/.test(s) ? s.toLowerCase() : s;
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
