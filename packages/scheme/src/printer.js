// @ts-check
/**
 * The printer: Scheme values to text, following R7RS §6.13.3.
 *
 *  - `writeString`: machine-readable; datum labels only for data with cycles, placed on
 *    the targets of the back edges of a depth-first walk (so `#0=(1 2 . #0#)`, not a label
 *    on every pair of the cycle), which is enough to make the output finite and readable.
 *  - `writeSharedString`: labels every pair, vector (and record) reachable more than once.
 *  - `writeSimpleString`: never labels. On a cyclic datum it stops with an error after a
 *    million nodes instead of running out of memory.
 *  - `displayString`: like write, but strings, characters and symbols are printed raw.
 *
 * No JS recursion: compound data are printed with an explicit stack of operations, and
 * the label analysis walks the graph with an explicit stack too. Atoms (numbers, strings,
 * symbols, booleans) and flat lists of atoms take a fast path without any analysis.
 *
 * Decisions: `'x` prints as `(quote x)`; characters outside the printable set print as
 * `#\x<hex>` (R7RS syntax: no `;` after the digits, unlike string escapes); symbols are
 * bar-quoted when the reader would not read their name back as the same symbol;
 * uninterned symbols print as their name; records print as `#<name field ...>` with the
 * angle brackets of an R7RS type name (`<point>`) dropped; error objects as
 * `#<error "who: message" irritant ...>`.
 */
import {
  Pair, Sym, MString, Char, Flonum, Ratnum, Compnum, Special, Closure, Record, RecordType, ErrorObject, Values, Box,
  schemeErrorOf,
} from './values.js';
import { numberToString, scanNumber, checkNumeralSize } from './numbers.js';

/** @typedef {'write'|'display'|'shared'|'simple'} PrintMode */

const WRITE = 0;
const DISPLAY = 1;
const SHARED = 2;
const SIMPLE = 3;
/** @type {PrintMode[]} */
const MODE_NAMES = ['write', 'display', 'shared', 'simple'];

/** @type {Map<Function, (x: any, mode: PrintMode) => string>} */
const printers = new Map();

/**
 * Teach the printer a type defined elsewhere (pids, tags, nodes, ports...).
 * `fn(x, mode)` returns the whole printed form; mode is 'write', 'display', 'shared'
 * (write-shared) or 'simple' (write-simple).
 * @param {Function} cls @param {(x: any, mode: PrintMode) => string} fn
 */
export function registerPrinter(cls, fn) {
  printers.set(cls, fn);
}

/** R7RS `write`. @param {any} x @returns {string} */
export function writeString(x) {
  return print(x, WRITE);
}
/** R7RS `display`. @param {any} x @returns {string} */
export function displayString(x) {
  if (typeof x === 'string') return x;
  return print(x, DISPLAY);
}
/** R7RS `write-shared`. @param {any} x @returns {string} */
export function writeSharedString(x) {
  return print(x, SHARED);
}
/** R7RS `write-simple`. @param {any} x @returns {string} */
export function writeSimpleString(x) {
  return print(x, SIMPLE);
}

/** @param {any} x @param {number} mode */
function print(x, mode) {
  switch (typeof x) {
    case 'number':
      return String(x);
    case 'string':
      return mode === DISPLAY ? x : writeStringLiteral(x);
    case 'boolean':
      return x ? '#t' : '#f';
    case 'bigint':
      return bigintText(x, mode);
  }
  if (x === null) return '()';
  if (!isNode(x)) return printAtom(x, mode);
  /** @type {Map<object, number>|null} */
  let labels = null;
  if (isFlat(x)) return printFlat(x, mode);
  if (mode === SHARED) {
    labels = findLabels(x, true);
  } else if (mode !== SIMPLE && !isAcyclicTree(x)) {
    labels = findLabels(x, false);
  }
  return printCompound(x, mode, labels);
}

/** Objects that can contain other values and be shared or cyclic. @param {any} x */
function isNode(x) {
  return x instanceof Pair || Array.isArray(x) || x instanceof Record || x instanceof Values || x instanceof ErrorObject;
}

/** @param {any} x */
const isNodeValue = (x) => typeof x === 'object' && x !== null && isNode(x);

/**
 * A proper or dotted list, or a vector, of atoms: nothing in it can be shared or cyclic
 * except a list's own spine, which Floyd's tortoise and hare checks without memory.
 * @param {any} x
 */
function isFlat(x) {
  if (Array.isArray(x)) {
    for (let i = 0; i < x.length; i++) if (isNodeValue(x[i])) return false;
    return true;
  }
  if (!(x instanceof Pair)) return false;
  let slow = x;
  let k = 0;
  while (x instanceof Pair) {
    if (isNodeValue(x.car)) return false;
    x = x.cdr;
    if ((++k & 1) === 0) {
      slow = slow.cdr;
      if (slow === x) return false;
    }
  }
  return !isNodeValue(x);
}

/**
 * The common case, without the printing machine: a list or vector of atoms.
 * @param {any} x a flat datum (see isFlat) @param {number} mode
 */
function printFlat(x, mode) {
  /** @type {string[]|null} long data: flattened chunks, as in printCompound */
  let chunks = null;
  let n = 0;
  let out;
  if (Array.isArray(x)) {
    if (x.length === 0) return '#()';
    out = '#(' + printElement(x[0], mode);
    for (let i = 1; i < x.length; i++) {
      out += ' ' + printElement(x[i], mode);
      if ((++n & 1023) === 0) {
        out.charCodeAt(0);
        (chunks ??= []).push(out);
        out = '';
      }
    }
  } else {
    out = '(' + printElement(x.car, mode);
    for (x = x.cdr; x instanceof Pair; x = x.cdr) {
      out += ' ' + printElement(x.car, mode);
      if ((++n & 1023) === 0) {
        out.charCodeAt(0);
        (chunks ??= []).push(out);
        out = '';
      }
    }
    if (x !== null) out += ' . ' + printElement(x, mode);
  }
  out += ')';
  if (chunks === null) return out;
  chunks.push(out);
  return chunks.join('');
}

/** An atom inside a datum. @param {any} x @param {number} mode @returns {string} */
function printElement(x, mode) {
  switch (typeof x) {
    case 'number':
      return String(x);
    case 'string':
      return mode === DISPLAY ? x : writeStringLiteral(x);
    case 'boolean':
      return x ? '#t' : '#f';
    case 'bigint':
      return bigintText(x, mode);
  }
  if (x === null) return '()';
  return printAtom(x, mode);
}

/** Nesting (car / element edges) beyond which isAcyclicTree gives up. */
const WALK_MAX_DEPTH = 1000;
/** Pairs and elements visited beyond which isAcyclicTree gives up. */
const WALK_BUDGET = 4_000_000;

/**
 * Prove that a datum has no cycle without remembering the nodes visited (hashing every
 * node costs about 1 µs; this walk costs a few ns per node). The walk expands the datum as
 * a tree: a cycle made only of cdrs is caught by Floyd's algorithm on each list spine; any
 * other cycle makes the walk descend forever, so it is caught by the depth bound. Shared
 * (acyclic) substructure is walked once per reference, as `write` prints it. Returns false
 * when it cannot prove acyclicity within its bounds; the caller then runs the exact
 * analysis (findLabels).
 * @param {any} root
 */
function isAcyclicTree(root) {
  /** @type {any[]} */
  const stack = [root, 0];
  let steps = 0;
  while (stack.length > 0) {
    const depth = stack.pop();
    let x = stack.pop();
    if (depth > WALK_MAX_DEPTH) return false;
    if (x instanceof Pair) {
      let slow = x;
      let k = 0;
      while (x instanceof Pair) {
        if (++steps > WALK_BUDGET) return false;
        const a = x.car;
        if (isNodeValue(a)) stack.push(a, depth + 1);
        x = x.cdr;
        if ((++k & 1) === 0) {
          slow = slow.cdr;
          if (slow === x) return false;
        }
      }
      if (isNodeValue(x)) stack.push(x, depth + 1);
      continue;
    }
    /** @type {any[]} */
    const kids = [];
    pushChildren(x, kids);
    steps += kids.length + 1;
    if (steps > WALK_BUDGET) return false;
    for (const c of kids) if (isNodeValue(c)) stack.push(c, depth + 1);
  }
  return true;
}

/**
 * The children of a node that may themselves be nodes.
 * @param {any} x @param {any[]} out push the children here
 */
function pushChildren(x, out) {
  if (x instanceof Pair) {
    out.push(x.cdr, x.car);
  } else if (Array.isArray(x)) {
    for (let i = x.length - 1; i >= 0; i--) out.push(x[i]);
  } else if (x instanceof Record) {
    for (let i = x.f.length - 1; i >= 0; i--) out.push(x.f[i]);
  } else if (x instanceof Values) {
    for (let i = x.vals.length - 1; i >= 0; i--) out.push(x.vals[i]);
  } else if (x instanceof ErrorObject) {
    out.push(x.irritants);
  }
}

/**
 * Which nodes need datum labels: for write, the targets of back edges of a depth-first
 * walk (every cycle contains one); for write-shared, every node reached twice.
 * Returns a map node → -1 (label not yet assigned), or null when no label is needed.
 * @param {any} root @param {boolean} shared
 * @returns {Map<object, number>|null}
 */
function findLabels(root, shared) {
  /** @type {Map<object, number>} 1 = on the current path, 2 = finished */
  const state = new Map();
  /** @type {Map<object, number>|null} */
  let labels = null;
  const EXIT = EXIT_MARK;
  /** @type {any[]} */
  const stack = [root];
  while (stack.length > 0) {
    const x = stack.pop();
    if (x === EXIT) {
      state.set(stack.pop(), 2);
      continue;
    }
    if (typeof x !== 'object' || x === null || !isNode(x)) continue;
    const st = state.get(x);
    if (st !== undefined) {
      if (shared || st === 1) {
        if (labels === null) labels = new Map();
        labels.set(x, -1);
      }
      continue;
    }
    if (shared) state.set(x, 2);
    else {
      state.set(x, 1);
      stack.push(x, EXIT);
    }
    pushChildren(x, stack);
  }
  return labels;
}
const EXIT_MARK = Symbol('exit');

// Operations of the printing machine (pushed after their operands).
const OP_VALUE = 0; // operand: value
const OP_TEXT = 1; // operand: string to emit
const OP_REST = 2; // operand: the cdr of a list being printed
const OP_SEQ = 3; // operands: array, index, closing text

/**
 * The printing machine: a compound datum printed from an explicit stack of operations,
 * so deep data do not recurse on the JS stack. Atoms go to printElement, the opening of
 * each node to openNode; the machine itself handles labels and the list and sequence
 * operations.
 * @param {any} root @param {number} mode @param {Map<object, number>|null} labels
 * @returns {string}
 */
function printCompound(root, mode, labels) {
  let out = '';
  // Output is built in chunks: `out` is flattened and set aside every 1024 steps, so the
  // pieces of the rope die young instead of surviving to the end (4-6x faster on big data).
  /** @type {string[]} */
  const chunks = [];
  let steps = 0;
  let nextLabel = 0;
  let nodes = 0;
  /** @type {any[]} */
  const stack = [root, OP_VALUE];
  while (stack.length > 0) {
    if ((++steps & 1023) === 0) {
      out.charCodeAt(0); // flattens the rope
      chunks.push(out);
      out = '';
    }
    const op = stack.pop();
    if (op === OP_TEXT) {
      out += stack.pop();
      continue;
    }
    if (op === OP_REST) {
      const r = stack.pop();
      if (r === null) {
        out += ')';
      } else if (r instanceof Pair && (labels === null || !labels.has(r))) {
        if (mode === SIMPLE && ++nodes === SIMPLE_CHECK_AT) checkAcyclic(root);
        out += ' ';
        stack.push(r.cdr, OP_REST, r.car, OP_VALUE);
      } else {
        out += ' . ';
        stack.push(')', OP_TEXT, r, OP_VALUE);
      }
      continue;
    }
    if (op === OP_SEQ) {
      const end = stack.pop();
      const i = stack.pop();
      const arr = stack.pop();
      if (i >= arr.length) {
        out += end;
        continue;
      }
      if (i > 0) out += ' ';
      stack.push(arr, i + 1, end, OP_SEQ, arr[i], OP_VALUE);
      continue;
    }
    // OP_VALUE
    const x = stack.pop();
    if (!isNodeValue(x)) {
      out += printElement(x, mode);
      continue;
    }
    if (labels !== null) {
      const n = labels.get(x);
      if (n !== undefined) {
        if (n >= 0) {
          out += '#' + n + '#';
          continue;
        }
        labels.set(x, nextLabel);
        out += '#' + nextLabel++ + '=';
      }
    } else if (mode === SIMPLE && ++nodes === SIMPLE_CHECK_AT) {
      checkAcyclic(root);
    }
    out += openNode(x, stack);
  }
  if (chunks.length === 0) return out;
  chunks.push(out);
  return chunks.join('');
}

/**
 * Start printing a node: its opening text, with the operations that print the rest of it
 * pushed on the printing machine's stack (its label, if any, is already printed).
 * @param {any} x a node (see isNode) @param {any[]} stack @returns {string}
 */
function openNode(x, stack) {
  if (x instanceof Pair) {
    stack.push(x.cdr, OP_REST, x.car, OP_VALUE);
    return '(';
  }
  if (Array.isArray(x)) {
    if (x.length === 0) return '#()';
    stack.push(x, 0, ')', OP_SEQ);
    return '#(';
  }
  if (x instanceof Record) {
    stack.push(x.f, 0, '>', OP_SEQ);
    return x.f.length > 0 ? '#<' + recordName(x.rtd) + ' ' : '#<' + recordName(x.rtd);
  }
  if (x instanceof Values) {
    stack.push(x.vals, 0, '', OP_SEQ);
    return '';
  }
  const e = /** @type {ErrorObject} */ (x);
  const head = '#<error ' + writeStringLiteral(e.who ? `${e.who}: ${e.message}` : e.message);
  const irritants = listToArrayBounded(e.irritants);
  if (irritants === null) {
    stack.push('>', OP_TEXT, e.irritants, OP_VALUE);
    return head + ' . ';
  }
  stack.push(irritants, 0, '>', OP_SEQ);
  return irritants.length > 0 ? head + ' ' : head;
}

/** write-simple looks for a cycle once it has printed this many pairs and vectors. */
const SIMPLE_CHECK_AT = 1_000_000;

/** write-simple on a cyclic datum: an error instead of running out of memory. @param {any} root */
function checkAcyclic(root) {
  if (findLabels(root, false) !== null) {
    schemeErrorOf('range', 'write-simple', 'cannot write a cyclic datum without labels (use write)', root);
  }
}

/** A proper list's elements, or null if it is improper or cyclic. @param {any} l */
function listToArrayBounded(l) {
  const out = [];
  let slow = l;
  while (l instanceof Pair) {
    out.push(l.car);
    l = l.cdr;
    if ((out.length & 1) === 0) {
      slow = slow.cdr;
      if (slow === l && l instanceof Pair) return null;
    }
  }
  return l === null ? out : null;
}

/** @param {any} rtd */
function recordName(rtd) {
  const name = rtd instanceof RecordType ? rtd.name : 'record';
  return name.length > 2 && name[0] === '<' && name[name.length - 1] === '>' ? name.slice(1, -1) : name;
}

/**
 * An exact integer in decimal; one too big to write in one call is refused with
 * `resource-limit` naming `display` or `write` (numbers/syntax.js checkNumeralSize).
 * @param {bigint} x @param {number} mode
 */
function bigintText(x, mode) {
  checkNumeralSize(mode === DISPLAY ? 'display' : 'write', x, 10);
  return x.toString();
}

/**
 * Everything that is not a number, string, boolean, () or node.
 * @param {any} x @param {number} mode
 * @returns {string}
 */
function printAtom(x, mode) {
  if (x instanceof MString) return mode === DISPLAY ? x.text() : writeStringLiteral(x.text());
  if (x instanceof Sym) return mode === DISPLAY ? x.name : writeSym(x);
  if (x instanceof Flonum || x instanceof Ratnum || x instanceof Compnum) return numberToString(x, 10, mode === DISPLAY ? 'display' : 'write');
  if (x instanceof Char) return mode === DISPLAY ? String.fromCodePoint(x.code) : writeChar(x.code);
  if (x instanceof Special) return '#!' + x.name;
  if (x instanceof Uint8Array) return x.length === 0 ? '#u8()' : '#u8(' + Array.prototype.join.call(x, ' ') + ')';
  if (x instanceof Closure) {
    const name = x.lam && x.lam.name;
    return name ? `#<procedure ${name}>` : '#<procedure>';
  }
  if (x === undefined) return '#<undefined>';
  if (typeof x === 'function') return x.name ? `#<procedure ${x.name}>` : '#<procedure>';
  if (typeof x === 'symbol') return `#<js-symbol ${String(x.description)}>`;
  const custom = printers.get(x.constructor);
  if (custom !== undefined) return custom(x, MODE_NAMES[mode]);
  if (x instanceof RecordType) return `#<record-type ${recordName(x)}>`;
  if (x instanceof Box) return '#<box>';
  const ctor = x.constructor && x.constructor.name;
  return ctor ? `#<${ctor}>` : '#<object>';
}

// ---------------------------------------------------------------------------------------
// Strings, characters and symbols

const STRING_NEEDS_ESCAPE = /["\\\x00-\x1f\x7f-\x9f]/;

/** @param {number} c a control character (or " or \) @returns {string} */
function escapeUnit(c) {
  switch (c) {
    case 34: return '\\"';
    case 92: return '\\\\';
    case 10: return '\\n';
    case 9: return '\\t';
    case 13: return '\\r';
    case 7: return '\\a';
    case 8: return '\\b';
    case 124: return '\\|';
    default: return '\\x' + c.toString(16) + ';';
  }
}

/**
 * A string as a literal that reads back to the same string.
 * @param {string} s
 */
export function writeStringLiteral(s) {
  if (!STRING_NEEDS_ESCAPE.test(s)) return '"' + s + '"';
  let out = '"';
  let last = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 34 || c === 92 || c < 0x20 || (c >= 0x7f && c <= 0x9f)) {
      out += s.slice(last, i) + escapeUnit(c);
      last = i + 1;
    }
  }
  return out + s.slice(last) + '"';
}

/** @type {{[code: number]: string}} */
const CHAR_NAMES = {
  0: 'null',
  7: 'alarm',
  8: 'backspace',
  9: 'tab',
  10: 'newline',
  13: 'return',
  27: 'escape',
  32: 'space',
  127: 'delete',
};
const NON_PRINTING = /[\p{C}\p{Z}]/u;

/** `#\a`, `#\space`, `#\x1`. @param {number} code */
function writeChar(code) {
  const name = CHAR_NAMES[code];
  if (name !== undefined) return '#\\' + name;
  const ch = String.fromCodePoint(code);
  if (NON_PRINTING.test(ch)) return '#\\x' + code.toString(16);
  return '#\\' + ch;
}

// An ordinary R7RS identifier (no digit first) needs no check beyond this pattern.
const PLAIN_SYMBOL = /^[a-zA-Z!$%&*/:<=>?^_~][a-zA-Z0-9!$%&*/:<=>?^_~+\-.@]*$/;
const SYMBOL_NEEDS_BARS = /[\s()[\]";'`,|\\\p{C}]/u;

/**
 * Whether a symbol name must be written between bars to read back as the same symbol.
 * @param {string} name
 */
export function symbolNeedsBars(name) {
  if (PLAIN_SYMBOL.test(name)) return false;
  if (name.length === 0 || name === '.' || name.charCodeAt(0) === 35 /* # */) return true;
  if (SYMBOL_NEEDS_BARS.test(name)) return true;
  return scanNumber(name, 10) !== false; // would read as a number (or a numeric error)
}

/** Written forms of interned symbols already printed. @type {Map<Sym, string>} */
const writtenSymbols = new Map();

/** @param {Sym} s */
function writeSym(s) {
  let w = writtenSymbols.get(s);
  if (w === undefined) {
    w = writeSymbol(s.name);
    if (s.interned) writtenSymbols.set(s, w);
  }
  return w;
}

/** @param {string} name */
function writeSymbol(name) {
  if (!symbolNeedsBars(name)) return name;
  let out = '|';
  let last = 0;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c === 124 || c === 92 || c < 0x20 || (c >= 0x7f && c <= 0x9f)) {
      out += name.slice(last, i) + escapeUnit(c);
      last = i + 1;
    }
  }
  return out + name.slice(last) + '|';
}
