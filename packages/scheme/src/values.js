// @ts-check
/**
 * The Scheme data model: how every Scheme value is represented in JavaScript.
 *
 * | Scheme                  | JavaScript                                                     |
 * |-------------------------|----------------------------------------------------------------|
 * | exact integer           | `number` when a safe integer (|n| <= 2^53-1), else `bigint`.   |
 * |                         | Invariant: a bigint is never in the safe range (normalised).   |
 * | exact rational          | `Ratnum` (num/den bigints, den > 1, gcd 1): never an integer.  |
 * | inexact real            | `Flonum` (boxed double). A JS `number` is ALWAYS exact.        |
 * | non-real complex        | `Compnum` (real and imaginary parts: reals as above)           |
 * | boolean                 | `true` / `false` (only `false` is false in Scheme)             |
 * | empty list `()`         | `null`                                                         |
 * | pair                    | `Pair` (mutable; literal constants are frozen)                 |
 * | symbol                  | `Sym`, interned: `Sym.intern(name)`; compare with `===`        |
 * | character               | `Char`, interned: `Char.of(codePoint)`; compare with `===`     |
 * | string                  | JS `string` when immutable (literals, symbol names, strings    |
 * |                         | read back from a tuple); `MString` when mutable (the strings   |
 * |                         | `make-string`, `string-copy`, `string-append`... make)         |
 * | vector                  | JS `Array` (mutable; literal constants are frozen)             |
 * | bytevector              | `Uint8Array`                                                   |
 * | procedure               | `Closure` (compiled code + free values, always serializable)   |
 * | record                  | `Record` whose `rtd` is a `RecordType`                         |
 * | multiple values (≠ 1)   | `Values`                                                       |
 * | unspecified / eof / default-object | the singletons `VOID`, `EOF`, `DEFAULT`             |
 * | error object            | `ErrorObject`                                                  |
 *
 * `undefined` is never a Scheme value. Process-level types (pids, tags, nodes, ports)
 * are defined by the packages that own them and registered with the printer and codec.
 */

/** A pair. Mutable unless frozen (literal constants are `Object.freeze`d). */
export class Pair {
  /** @param {any} car @param {any} cdr */
  constructor(car, cdr) {
    this.car = car;
    this.cdr = cdr;
  }
}

/** An inexact real number (IEEE double). */
export class Flonum {
  /** @param {number} v */
  constructor(v) {
    this.v = v;
  }
}

/** An exact non-integer rational: num/den in lowest terms, den > 1. Build with numbers.js. */
export class Ratnum {
  /** @param {bigint} num @param {bigint} den */
  constructor(num, den) {
    this.num = num;
    this.den = den;
  }
}

/**
 * A mutable string. Its text is kept either as a JS string `s` (what most operations
 * read) or as an array of code points `cp` (what `string-set!` writes), or both while
 * they agree: the array is made on the first mutation, and the JS string is rebuilt
 * (and kept) the next time the text is read. Invariant: `s !== null || cp !== null`,
 * and when both are set they hold the same characters.
 */
export class MString {
  /** @param {string|null} s @param {number[]|null} [cp] */
  constructor(s, cp = null) {
    this.s = s;
    this.cp = cp;
  }
  /** The current text, as a JS string. @returns {string} */
  text() {
    if (this.s === null) this.s = codePointsToString(/** @type {number[]} */ (this.cp));
    return this.s;
  }
  /** The code points, made from the text the first time (then kept). @returns {number[]} */
  codePoints() {
    if (this.cp === null) {
      const s = /** @type {string} */ (this.s);
      const cp = new Array(s.length);
      let n = 0;
      for (let i = 0; i < s.length; i++) {
        const u = s.charCodeAt(i);
        if (u >= 0xd800 && u <= 0xdbff && i + 1 < s.length) {
          const v = s.charCodeAt(i + 1);
          if (v >= 0xdc00 && v <= 0xdfff) {
            cp[n++] = ((u - 0xd800) << 10) + (v - 0xdc00) + 0x10000;
            i++;
            continue;
          }
        }
        cp[n++] = u;
      }
      cp.length = n;
      this.cp = cp;
    }
    return this.cp;
  }
  /** About to change the code points: the cached JS string is dropped. @returns {number[]} */
  forWriting() {
    const cp = this.codePoints();
    this.s = null;
    return cp;
  }
}

/**
 * The text of code points, built in chunks (a spread of a long array would overflow
 * the JS argument limit).
 * @param {number[]} cp
 */
export function codePointsToString(cp) {
  if (cp.length <= 4096) return String.fromCodePoint.apply(null, cp);
  /** @type {string[]} */
  const parts = [];
  for (let i = 0; i < cp.length; i += 4096) parts.push(String.fromCodePoint.apply(null, cp.slice(i, i + 4096)));
  return parts.join('');
}

/** Whether `x` is a Scheme string (immutable JS string or mutable `MString`). @param {any} x */
export const isString = (x) => typeof x === 'string' || x instanceof MString;

/**
 * The text of a Scheme string; `x` itself when it is not one.
 * @param {any} x
 */
export const stringText = (x) => (x instanceof MString ? x.text() : x);

/**
 * A non-real complex number: `re` + `im`i, both real Scheme numbers. Build with
 * numbers/complex.js makeRectangular. Invariants: `im` is never exact 0 (that is a
 * real); when `im` is exact so is `re`; when `im` is inexact, `re` is inexact or exact 0
 * (a pure imaginary such as `+2.0i`). The number is exact exactly when `im` is.
 */
export class Compnum {
  /** @param {any} re @param {any} im */
  constructor(re, im) {
    this.re = re;
    this.im = im;
  }
}

/** @type {Map<string, Sym>} */
const symbolTable = new Map();
let gensymCounter = 0;

/** A symbol. Interned symbols are unique per name; uninterned ones (gensyms) are not in the table. */
export class Sym {
  /** @param {string} name @param {boolean} interned */
  constructor(name, interned) {
    this.name = name;
    this.interned = interned;
  }
  /** @param {string} name @returns {Sym} */
  static intern(name) {
    let s = symbolTable.get(name);
    if (s === undefined) {
      s = new Sym(name, true);
      symbolTable.set(name, s);
    }
    return s;
  }
  /** A fresh uninterned symbol. @param {string} [prefix] */
  static gensym(prefix = 'g') {
    return new Sym(`${prefix}${++gensymCounter}`, false);
  }
}

/** @type {Char[]} */
const bmpChars = [];
/** @type {Map<number, Char>} */
const astralChars = new Map();

/** A character: one Unicode scalar value. Interned: `Char.of(c) === Char.of(c)`. */
export class Char {
  /** @param {number} code */
  constructor(code) {
    this.code = code;
  }
  /** @param {number} code a Unicode scalar value @returns {Char} */
  static of(code) {
    if (code < 0x10000) {
      let c = bmpChars[code];
      if (c === undefined) bmpChars[code] = c = new Char(code);
      return c;
    }
    let c = astralChars.get(code);
    if (c === undefined) astralChars.set(code, (c = new Char(code)));
    return c;
  }
}

/** A distinguished constant printed as `#!name`. */
export class Special {
  /** @param {string} name */
  constructor(name) {
    this.name = name;
  }
}
/** The unspecified value (what `(if #f #f)` returns). */
export const VOID = new Special('void');
/** The end-of-file object. */
export const EOF = new Special('eof');
/** The default object: the value of an optional parameter that was not passed. */
export const DEFAULT = new Special('default');
/** A constant standing for the hash of the unit that contains it (record type ids). */
export const UNIT_HASH = new Special('unit-hash');
/** Marks a variable bound by letrec that has not been initialised yet. */
export const UNASSIGNED = new Special('unassigned');

/** Zero or several values returned to one continuation (exactly one value is returned bare). */
export class Values {
  /** @param {any[]} vals */
  constructor(vals) {
    this.vals = vals;
  }
}

/** A mutable cell holding an assigned variable that a closure or frame captures. */
export class Box {
  /** @param {any} v */
  constructor(v) {
    this.v = v;
  }
}

/**
 * Static description of one compiled lambda. Shared by every closure of that lambda.
 * Filled in by the code store when a unit is loaded.
 * @typedef {object} LambdaInfo
 * @property {any} unit      the Unit (code store) that holds this lambda
 * @property {number|string} index  index of the lambda within its unit (a builtin's: its name)
 * @property {string} name   procedure name for messages (`"fib"`, `"anonymous"`)
 * @property {number} nreq   number of required parameters
 * @property {number} nopt   number of optional parameters (from case-lambda / #!optional), 0 usually
 * @property {boolean} rest  whether extra arguments are collected in a list
 * @property {Function} fast direct-style entry: fast.call(closure, word, ...args) (CALL: word = depth and argument count)
 * @property {Function|null} resume resumable twin: resume(frame, value); null for builtins, which leave no frames
 */

/**
 * The property under which every callable value keeps its code: a procedure is called
 * as `f[CALL](word, ...args)` with `this === f`. A symbol, so it collides with nothing.
 *
 * The first argument, the call word, is `depth * DEPTH_UNIT + argc`: the caller's JS
 * stack depth (passes/generate-js.js MAX_DEPTH) and the number of arguments it passes.
 * A callee checks its arity with one integer test on the word (`(d & ARGC_MASK) !== 2`)
 * instead of reading `arguments`, which V8 makes the hot call pay for. So every caller,
 * generated or written in JavaScript, must put the true count there (callWord); a
 * callee written in JavaScript may still read `arguments.length` instead.
 */
export const CALL = Symbol('termite.call');

/** The low bits of a call word that hold the argument count. */
export const ARGC_BITS = 16;
/** One unit of stack depth in a call word. */
export const DEPTH_UNIT = 1 << ARGC_BITS;
/** The argument count of a call word: `word & ARGC_MASK`. */
export const ARGC_MASK = DEPTH_UNIT - 1;
/**
 * The most arguments one call can pass (V8 parses no call with more than 65,535
 * arguments either); `apply` and the driver refuse more with an error.
 */
export const MAX_CALL_ARGUMENTS = ARGC_MASK;
/**
 * The version of the generated code's calling convention. Kept JavaScript (the start-up
 * cache of generated fast forms) is keyed by it, so code generated under another
 * convention is never linked with this one's. Bump it whenever what a call site passes
 * or what an entry expects changes.
 */
export const CALLING_CONVENTION = 2;

/**
 * The call word for calling a procedure with `argc` arguments from an activation whose
 * own call word is `d` (one unit deeper than that activation).
 * @param {number} d @param {number} argc
 */
export function callWord(d, argc) {
  return d - (d & ARGC_MASK) + DEPTH_UNIT + argc;
}

/**
 * A procedure value: code reference plus free values. Never holds a JS closure, so any
 * procedure (and any continuation, which is a procedure) can be serialized as
 * (unit hash, lambda index, free values).
 */
export class Closure {
  /**
   * @param {Function} fn   the lambda's fast entry (same as lam.fast); called fn.call(closure, word, ...args) (CALL)
   * @param {LambdaInfo} lam
   * @param {any[]|null} fv free values, in the order closure conversion assigned
   */
  constructor(fn, lam, fv) {
    this[CALL] = fn;
    this.lam = lam;
    this.fv = fv;
  }
  /** The code of this closure. */
  get fn() {
    return this[CALL];
  }
}

/** One reified continuation frame: where to resume (lambda + label) and the live values. */
export class Frame {
  /**
   * @param {LambdaInfo} lam
   * @param {number} label  return point within the lambda
   * @param {any[]} s       live values saved at the call site (slot 0 is the closure)
   * @param {Frame|null} next the caller's frame
   */
  constructor(lam, label, s, next) {
    this.lam = lam;
    this.label = label;
    this.s = s;
    this.next = next;
  }
}

/** A record type descriptor (R7RS define-record-type). `uid` names it across nodes. */
export class RecordType {
  /** @param {string} name @param {string[]} fields @param {string} uid */
  constructor(name, fields, uid) {
    this.name = name;
    this.fields = fields;
    this.uid = uid;
  }
}

/** An instance of a record type. */
export class Record {
  /** @param {RecordType} rtd @param {any[]} f */
  constructor(rtd, f) {
    this.rtd = rtd;
    this.f = f;
  }
}

/**
 * An R7RS error object. `kind` distinguishes the standard predicates
 * ('error' for `error`, 'read' for read-error?, 'file' for file-error?, and for errors
 * signalled by primitives: 'type', 'range', 'arity', 'unbound', 'syntax', 'timeout', ...).
 * `who` names the procedure that signalled it (or null); `loc` is "file:line:col" or null.
 */
export class ErrorObject {
  /**
   * @param {string} message
   * @param {any} irritants a Scheme list
   * @param {string} [kind]
   * @param {string|null} [who]
   */
  constructor(message, irritants, kind = 'error', who = null) {
    this.message = message;
    this.irritants = irritants;
    this.kind = kind;
    this.who = who;
    /** @type {string|null} the location given, or found (see `loc`) */
    this.givenLoc = null;
    /** @type {{lines(): string[], location(): string|null}|null} where it was signalled (engine/backtrace.js ErrorOrigin), set when raised */
    this.origin = null;
  }

  /**
   * "file:line:col" of the call that signalled it, or null. Found from where it was
   * signalled only when asked: an error a handler catches costs no formatting.
   * @type {string|null}
   */
  get loc() {
    if (this.givenLoc === null && this.origin !== null) this.givenLoc = this.origin.location();
    return this.givenLoc;
  }

  set loc(where) {
    this.givenLoc = where;
  }

  /** The chain of Scheme procedures that led to this error, innermost first ("name at file:line:col"), or null. */
  get schemeBacktrace() {
    return this.origin === null ? null : this.origin.lines();
  }
}

/**
 * The JS exception that carries a Scheme condition (any Scheme value) out of a primitive.
 * The driver catches it and raises the payload in the current process, so it reaches
 * the Scheme handlers (`guard`, `with-exception-handler`, `catch`).
 */
export class SchemeError extends Error {
  /** @param {any} payload the raised Scheme object (usually an ErrorObject) */
  constructor(payload) {
    // deeper than V8's default 10 frames: the stack is the inner part of the error's
    // backtrace (engine/backtrace.js, JS_FRAMES); captured only when an error is
    // signalled, and formatted only if someone asks for the location or the backtrace
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 60;
    super(payload instanceof ErrorObject ? payload.message : 'Scheme exception');
    Error.stackTraceLimit = limit;
    this.name = 'SchemeError';
    this.payload = payload;
  }
}

/**
 * Signal an error from a primitive: throws a SchemeError carrying an ErrorObject.
 * Messages follow "who: what was expected, got X"; irritants are the offending values.
 * @param {string} who @param {string} message @param {...any} irritants
 * @returns {never}
 */
export function schemeError(who, message, ...irritants) {
  throw new SchemeError(new ErrorObject(message, arrayToList(irritants), 'error', who));
}

/**
 * Signal a typed error (kind is 'type', 'range', 'arity', ...).
 * @param {string} kind @param {string} who @param {string} message @param {...any} irritants
 * @returns {never}
 */
export function schemeErrorOf(kind, who, message, ...irritants) {
  throw new SchemeError(new ErrorObject(message, arrayToList(irritants), kind, who));
}

// ---------------------------------------------------------------------------------------
// Small helpers every module needs.

/** @param {any} x */
export const isPair = (x) => x instanceof Pair;
/** @param {any} x */
export const isSymbol = (x) => x instanceof Sym;
/** @param {any} x */
export const isProcedure = (x) => x instanceof Closure;

/** @param {any} a @param {any} b */
export const cons = (a, b) => new Pair(a, b);

/**
 * Build a proper list from an array (optionally ending in `tail`).
 * @param {ArrayLike<any>} arr @param {any} [tail]
 */
export function arrayToList(arr, tail = null) {
  let l = tail;
  for (let i = arr.length - 1; i >= 0; i--) l = new Pair(arr[i], l);
  return l;
}

/**
 * The elements of a proper list as an array. Throws a Scheme error naming `who`, with the
 * whole list as irritant, when the argument is not a proper list (improper or cyclic).
 * @param {any} l @param {string} [who]
 * @returns {any[]}
 */
export function listToArray(l, who = 'list->vector') {
  const out = [];
  const whole = l;
  let slow = l;
  while (l instanceof Pair) {
    out.push(l.car);
    l = l.cdr;
    if ((out.length & 1) === 0) {
      slow = slow.cdr;
      if (slow === l && l instanceof Pair) schemeErrorOf('type', who, 'expected a proper list, got a cyclic list', whole);
    }
  }
  if (l !== null) schemeErrorOf('type', who, 'expected a proper list', whole);
  return out;
}

/** @param {...any} xs */
export const list = (...xs) => arrayToList(xs);

/**
 * Whether `l` is a proper (finite, null-terminated) list.
 * @param {any} l
 */
export function isList(l) {
  let slow = l;
  for (;;) {
    if (l === null) return true;
    if (!(l instanceof Pair)) return false;
    l = l.cdr;
    if (l === null) return true;
    if (!(l instanceof Pair)) return false;
    l = l.cdr;
    slow = slow.cdr;
    if (l === slow) return false;
  }
}

/**
 * Make a value returned by a compiled `values` call: one value is returned bare.
 * @param {any[]} vals
 */
export function makeValues(vals) {
  return vals.length === 1 ? vals[0] : new Values(vals);
}

/**
 * Bytevector literals. A Uint8Array cannot be frozen, so the mutators ask this set
 * (`isFrozenBytevector`) instead of `Object.isFrozen`.
 * @type {WeakSet<Uint8Array>}
 */
const frozenBytevectors = new WeakSet();

/** Whether `b` is a bytevector literal (mutating it is an error). @param {Uint8Array} b */
export const isFrozenBytevector = (b) => frozenBytevectors.has(b);

/**
 * Deep-freeze a literal constant (pairs, vectors and bytevectors) so that mutating it is
 * an error, as R7RS requires of literals. Bounded by an explicit stack, never recursion.
 * @template T @param {T} datum @returns {T}
 */
export function freezeLiteral(datum) {
  const stack = [datum];
  while (stack.length > 0) {
    const x = stack.pop();
    if (x instanceof Uint8Array) {
      frozenBytevectors.add(x);
    } else if (x instanceof Pair) {
      if (Object.isFrozen(x)) continue;
      Object.freeze(x);
      stack.push(x.car, x.cdr);
    } else if (Array.isArray(x)) {
      if (Object.isFrozen(x)) continue;
      Object.freeze(x);
      for (const e of x) stack.push(e);
    }
  }
  return datum;
}
