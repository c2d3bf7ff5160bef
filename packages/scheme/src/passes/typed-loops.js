// @ts-check
/**
 * Typed loops for generate-js: a loop clause (a lambda whose body ends in K_LOOP, from a
 * named let or `do`) whose every instruction is fixnum or flonum arithmetic, a
 * comparison, a copy, a test, a return, a tail call out of the loop or the loop's own
 * jump gets a second, typed copy
 * of its body, run first when a guard at entry finds the expected types:
 *
 *   typed: if (typeof l0 === 'number' && l1 instanceof Flonum && ...) {
 *     let u0 = l0, u1 = l1.v, ...;          fixnums stay JS numbers, flonums are unboxed
 *     let fuel = R.fuel;                    to doubles: no allocation, no dispatch per op
 *     for (;;) {                            (the fuel is counted in a local: nothing
 *       if (--fuel < 0) break;              else runs until the loop leaves)
 *       ... the body on JS numbers; a fixnum result outside ±(2^52 - 1) breaks ...
 *       u0 = ...; u1 = ...; continue;       (K_LOOP)
 *     }
 *     R.fuel = fuel; l0 = u0; l1 = new Flonum(u1);   the iteration's start state back
 *   }
 *   loop: for (;;) { the general loop }     which suspends (fuel) or computes the
 *                                           general case (bignum, mixed types)
 *
 * Invariants that make this correct:
 *  - Only pure operations are allowed (no call, no allocation visible to the program, no
 *    side effect), and loop variables are assigned only at the loop's jump. So at any
 *    break the typed variables u0.. of the loop's parameters still hold the state at
 *    the start of the current iteration, and the general loop redoing that iteration
 *    from its start computes the same thing: an overflow to bignum, a fuel check that
 *    must suspend (the general loop's own check then spills the state to a frame, so a
 *    pre-empted or migrated typed loop is an ordinary suspended call), all fall back.
 *  - Types come from unification over the body: the two operands of an arithmetic or
 *    comparison operation and an arithmetic result have one type; an integer literal
 *    is a fixnum, a flonum constant a flonum; a loop parameter has its jump argument's
 *    type. A class with no known type, or with two, makes the loop not typed. Values
 *    in no numeric class (booleans from comparisons, values passed through) keep their
 *    ordinary representation.
 *  - A typed operation computes exactly what the open-coded generic one computes for
 *    those types (inline-primitives.js): the same IEEE operations, the same fixnum
 *    range, `* ... + 0` against -0.
 *  - Only generated identifiers and integers are written (generate-js's rule).
 */
import {
  A_CONST, A_LOCAL, A_FREE, A_GLOBAL, A_FIX, T_PRIM,
  K_RETURN, K_TAIL, K_LET, K_IF, K_LOOP,
} from '../ir/wire.js';
import { Flonum } from '../values.js';

const ARITH = new Set(['+', '-', '*']);
const COMPARE = { '<': '<', '>': '>', '<=': '<=', '>=': '>=', '=': '===' };
/** The largest body, in instructions, that gets a typed copy (code size). */
const MAX_INSTRUCTIONS = 200;
const FIX_MAX = 4503599627370495;

/** @typedef {'fix'|'flo'} NumType */

/** Union-find over value slots: 'l3' (local), 'f1' (free), '#7' (a result). */
class Classes {
  constructor() {
    /** @type {Map<string, string>} */
    this.parent = new Map();
    /** @type {Map<string, NumType|'opaque'|'bad'>} */
    this.type = new Map();
    /** @type {Set<string>} roots of classes used as numbers */
    this.numeric = new Set();
  }
  /** @param {string} k @returns {string} */
  find(k) {
    let p = this.parent.get(k);
    if (p === undefined) {
      this.parent.set(k, k);
      return k;
    }
    while (p !== k) {
      k = p;
      p = /** @type {string} */ (this.parent.get(k));
    }
    return k;
  }
  /** @param {string} a @param {string} b */
  union(a, b) {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra === rb) return;
    this.parent.set(rb, ra);
    const ta = this.type.get(ra);
    const tb = this.type.get(rb);
    if (tb !== undefined) this.setType(ra, tb);
    else if (ta !== undefined) this.type.set(ra, ta);
    if (this.numeric.delete(rb)) this.numeric.add(ra);
  }
  /** @param {string} k @param {NumType|'opaque'|'bad'} t */
  setType(k, t) {
    const r = this.find(k);
    const old = this.type.get(r);
    this.type.set(r, old === undefined || old === t ? t : 'bad');
  }
  /** @param {string} k */
  markNumeric(k) {
    this.numeric.add(this.find(k));
  }
  /** The type of slot k: a number type, 'any' (not numeric), or null (unknown / conflicting). @param {string} k */
  typeOf(k) {
    const r = this.find(k);
    const t = this.type.get(r);
    if (!this.numeric.has(r)) return t === undefined || t === 'opaque' ? 'any' : t === 'bad' ? null : t;
    return t === 'fix' || t === 'flo' ? t : null;
  }
}

/**
 * The typing of a loop clause, or null when it gets no typed copy.
 * @param {any} unit @param {any} cl
 * @returns {{cls: Classes, frees: number[]} | null}
 */
export function typeLoop(unit, cl) {
  // size: one walk over the body whose three helpers share the classes, the free list
  // and the counters; apart, they would pass all of them around
  if (cl.rest) return null;
  const cls = new Classes();
  let count = 0;
  let next = 0;
  /** @type {Set<number>} */
  const frees = new Set();
  /** @type {string[]} slots called: they must not be numbers */
  const callees = [];
  /** The slot of an atom, or null when it cannot be typed. @param {any} a @returns {string|null} */
  const slot = (a) => {
    switch (a[0]) {
      case A_LOCAL: return `l${a[1]}`;
      case A_FREE: frees.add(a[1]); return `f${a[1]}`;
      case A_FIX: { const k = `#${next++}`; cls.setType(k, 'fix'); return k; }
      case A_CONST: {
        const k = `#${next++}`;
        if (unit.consts[a[1]] instanceof Flonum) cls.setType(k, 'flo');
        else cls.setType(k, 'opaque'); // any other constant: fine as a value, never as a number
        return k;
      }
      default: return null;
    }
  };
  /** Type a trivial expression whose value goes to slot `dest`. @param {any} t @param {string} dest */
  const triv = (t, dest) => {
    if (t[0] !== T_PRIM) {
      const s = slot(t);
      if (s === null) return false;
      cls.union(dest, s);
      return true;
    }
    const name = unit.prims[t[1]];
    if (t.length !== 4) return false;
    const a = slot(t[2]);
    const b = slot(t[3]);
    if (a === null || b === null) return false;
    cls.union(a, b);
    cls.markNumeric(a);
    if (ARITH.has(name)) cls.union(dest, a);
    else if (name === '/') {
      cls.setType(a, 'flo');
      cls.union(dest, a);
    } else if (!(name in COMPARE)) return false;
    return true;
  };
  /** @param {any[]} block @returns {boolean} */
  const walk = (block) => {
    for (const ins of block) {
      if (++count > MAX_INSTRUCTIONS) return false;
      switch (ins[0]) {
        case K_LET:
          if (ins[1] < 0 || !triv(ins[2], `l${ins[1]}`)) return false;
          break;
        case K_IF:
          if (slot(ins[1]) === null || !walk(ins[2]) || !walk(ins[3])) return false;
          return true;
        case K_RETURN:
          return triv(ins[1], `#${next++}`);
        case K_TAIL: { // a tail call out of the loop (another procedure, an escape)
          const f = ins[1][0] === A_GLOBAL ? null : slot(ins[1]);
          if (f !== null) callees.push(f);
          return (ins[1][0] === A_GLOBAL || f !== null) && ins[2].every((/** @type {any} */ a) => slot(a) !== null);
        }
        case K_LOOP:
          if (ins[1].length !== cl.nreq) return false;
          for (let k = 0; k < cl.nreq; k++) {
            const s = slot(ins[1][k]);
            if (s === null) return false;
            cls.union(`l${k}`, s);
          }
          return true;
        default:
          return false;
      }
    }
    return false;
  };
  if (!walk(cl.body)) return null;
  // every slot must resolve: walk the slots seen (locals, frees, results)
  for (const k of cls.parent.keys()) if (cls.typeOf(k) === null) return null;
  if (callees.some((k) => cls.typeOf(k) !== 'any')) return null;
  let numericParam = false;
  for (let k = 0; k < cl.nreq; k++) if (cls.typeOf(`l${k}`) !== 'any') numericParam = true;
  if (!numericParam) return null;
  return { cls, frees: [...frees].sort((x, y) => x - y) };
}

/**
 * Emit the typed copy (the guarded block above) for a clause typeLoop accepted.
 * @param {any} unit @param {any} cl @param {{cls: Classes, frees: number[]}} typing
 * @param {(argc: number) => string} word the call word of a call passing argc arguments
 *   (generate-js BlockWriter.word: d plus the activation's weight and the count)
 * @param {string[]} lines
 */
export function emitTypedLoop(unit, cl, typing, word, lines) {
  const { cls } = typing;
  const params = [];
  for (let k = 0; k < cl.nreq; k++) params.push(k);
  /** @param {string} k */
  const ty = (k) => cls.typeOf(k);
  const guards = [];
  for (const k of params) {
    const t = ty(`l${k}`);
    if (t === 'fix') guards.push(`typeof l${k} === 'number'`);
    else if (t === 'flo') guards.push(`l${k} instanceof Flonum`);
  }
  /** @type {string[]} */
  const freeInits = [];
  for (const i of typing.frees) {
    const t = ty(`f${i}`);
    if (t === 'fix') guards.push(`typeof f${i} === 'number'`);
    else if (t === 'flo') guards.push(`f${i} instanceof Flonum`);
    freeInits.push(`w${i} = ${t === 'flo' ? `f${i}.v * 1` : t === 'fix' ? `f${i} * 1` : `f${i}`}`);
  }
  // `* 1` (exact for every double, -0 and NaN included) makes V8 see a number result and
  // keep the loop variable as a double; a plain copy of a parameter stays tagged, and
  // every iteration then allocates a heap number (loop10m ran 5x slower)
  const unbox = (/** @type {number} */ k) => {
    const t = ty(`l${k}`);
    return t === 'flo' ? `l${k}.v * 1` : t === 'fix' ? `l${k} * 1` : `l${k}`;
  };
  const box = (/** @type {string} */ slotName, /** @type {string} */ js) => (ty(slotName) === 'flo' ? `new Flonum(${js})` : js);
  lines.push(`  if (${guards.join(' && ')}) {`);
  const locals = params.map((k) => `u${k} = ${unbox(k)}`);
  for (let i = cl.nreq; i < cl.nlocals; i++) locals.push(`u${i}`);
  lines.push(`    let ${locals.join(', ')};`);
  if (freeInits.length > 0) lines.push(`    const ${freeInits.join(', ')};`);
  lines.push(`    let fuel = R.fuel;`);
  lines.push(`    for (;;) {`);
  lines.push(`      if (--fuel < 0) break;`);
  new TypedWriter(unit, cls, box, word).block(cl.body, '      ', lines);
  lines.push(`    }`);
  lines.push(`    R.fuel = fuel; ${params.map((k) => `l${k} = ${box(`l${k}`, `u${k}`)};`).join(' ')}`);
  lines.push(`  }`);
}

/** Writes a typed body: JS numbers for fixnums and flonums, `break` to fall back. */
class TypedWriter {
  /**
   * @param {any} unit @param {Classes} cls
   * @param {(slot: string, js: string) => string} box
   * @param {(argc: number) => string} word the call word of a call (emitTypedLoop)
   */
  constructor(unit, cls, box, word) {
    this.unit = unit;
    this.cls = cls;
    this.box = box;
    this.word = word;
    this.temp = 0;
  }

  /** @param {any[]} block @param {string} ind @param {string[]} lines */
  block(block, ind, lines) {
    for (const ins of block) {
      switch (ins[0]) {
        case K_LET:
          this.assign(`u${ins[1]}`, ins[2], ind, lines);
          break;
        case K_IF:
          lines.push(`${ind}if (${this.atom(ins[1])} !== false) {`);
          this.block(ins[2], ind + '  ', lines);
          lines.push(`${ind}}`);
          this.block(ins[3], ind, lines);
          return;
        case K_RETURN: {
          const t = ins[1];
          if (t[0] !== T_PRIM) {
            lines.push(`${ind}R.fuel = fuel; return ${this.boxAtom(t)};`);
            return;
          }
          const r = `r${this.temp++}`;
          lines.push(`${ind}let ${r};`);
          const type = this.assign(r, t, ind, lines);
          lines.push(`${ind}R.fuel = fuel; return ${type === 'flo' ? `new Flonum(${r})` : r};`);
          return;
        }
        case K_TAIL: {
          const f = ins[1][0] === A_GLOBAL ? `G${ins[1][1]}.v` : this.atom(ins[1]);
          const args = ins[2].map((/** @type {any} */ a) => `, ${this.boxAtom(a)}`).join('');
          lines.push(`${ind}R.fuel = fuel; return ${f}[CALL](${this.word(ins[2].length)}${args});`);
          return;
        }
        case K_LOOP: {
          const args = ins[1].map((/** @type {any} */ a) => this.atom(a));
          const temps = args.map((/** @type {string} */ a, /** @type {number} */ k) => `t${k} = ${a}`);
          if (args.length > 0) lines.push(`${ind}{ const ${temps.join(', ')}; ${args.map((/** @type {any} */ _, /** @type {number} */ k) => `u${k} = t${k};`).join(' ')} }`);
          lines.push(`${ind}continue;`);
          return;
        }
      }
    }
  }

  /**
   * `dest = triv` on typed values; returns the value's type ('any' when not a number).
   * @param {string} dest @param {any} t @param {string} ind @param {string[]} lines
   */
  assign(dest, t, ind, lines) {
    if (t[0] !== T_PRIM) {
      lines.push(`${ind}${dest} = ${this.atom(t)};`);
      return this.atomType(t);
    }
    const name = this.unit.prims[t[1]];
    const a = this.atom(t[2]);
    const b = this.atom(t[3]);
    const type = this.atomType(t[2]) === 'any' ? this.atomType(t[3]) : this.atomType(t[2]);
    if (name in COMPARE) {
      lines.push(`${ind}${dest} = ${a} ${COMPARE[/** @type {keyof COMPARE} */ (name)]} ${b};`);
      return 'any';
    }
    if (type === 'flo') {
      lines.push(`${ind}${dest} = ${a} ${name} ${b};`);
      return 'flo';
    }
    lines.push(`${ind}${dest} = ${a} ${name} ${b}${name === '*' ? ' + 0' : ''};`);
    lines.push(`${ind}if (!(${dest} <= ${FIX_MAX} && ${dest} >= -${FIX_MAX})) break;`);
    return 'fix';
  }

  /** @param {any} a */
  atomType(a) {
    switch (a[0]) {
      case A_LOCAL: return this.cls.typeOf(`l${a[1]}`);
      case A_FREE: return this.cls.typeOf(`f${a[1]}`);
      case A_FIX: return 'fix';
      case A_CONST: return this.unit.consts[a[1]] instanceof Flonum ? 'flo' : 'any';
      default: return 'any';
    }
  }

  /** The typed JS of an atom. @param {any} a */
  atom(a) {
    switch (a[0]) {
      case A_LOCAL: return `u${a[1]}`;
      case A_FREE: return `w${a[1]}`;
      case A_FIX: return a[1] < 0 ? `(${a[1]})` : String(a[1]);
      case A_CONST: return this.unit.consts[a[1]] instanceof Flonum ? `K${a[1]}.v` : `K${a[1]}`;
      default: throw new Error(`typed-loops: atom ${a[0]}`);
    }
  }

  /** An atom as a Scheme value (flonums boxed again). @param {any} a */
  boxAtom(a) {
    if (a[0] === A_CONST) return `K${a[1]}`;
    return this.atomType(a) === 'flo' ? `new Flonum(${this.atom(a)})` : this.atom(a);
  }
}
