// @ts-check
/**
 * pass: generate-js : L3 Wire -> JavaScript source text
 *
 * Continuations by unwinding: compiled code runs in direct style on the JS stack, and only
 * when something below a call must take the stack away does each activation save itself
 * as a data frame and return a sentinel, so a continuation is a chain of data frames that
 * serializes like any value (docs/architecture.md § The compiler). To that end each
 * clause of each lambda becomes two JS functions:
 *
 *   fast form    function L5(d, l0, l1)   `this` is the closure, d the call word: the JS
 *                stack depth times DEPTH_UNIT plus the number of arguments passed
 *                (values.js CALL), so the arity check is one integer test on d.
 *                Structured code: K_IF → an `if` whose else-code follows it unnested,
 *                K_JOIN → `jN: { inner }` followed by the join's code, K_LOOP →
 *                `continue` of a loop around the body.
 *                After every non-tail call:
 *                  l2 = f[CALL](d + k, ...); if (l2 === U) return push(LAM5, label, [c, live...]);
 *                (k a constant: this activation's stack weight (frameWeight) in depth
 *                units, less its own argument count, plus the callee's)
 *                so when anything below unwinds (pre-emption, call/cc, a blocking receive,
 *                the depth limit), this activation reifies itself as a Frame and unwinds too.
 *                On entry: arity check, then fuel and depth check (`sc` suspends the call).
 *   resume form  function L5$r(fr, v)    continues an activation from a Frame: restores
 *                the frame's live locals, binds v to the call's destination, and runs
 *                the rest of the clause as a state machine (`for(;;) switch (st)`) whose
 *                states are the return points and join points, so no code is duplicated.
 *                A self tail call re-enters the fast form.
 *
 * The fast forms and the resume forms of a unit can be generated apart (generateJs's
 * `part`): the linker generates the resume forms on the first resume. A loop clause on
 * fixnums or flonums also gets a typed copy in its fast form (typed-loops.js). The JS
 * stack is bounded in bytes: `d` counts stack units, each call adding its activation's
 * frameWeight, and a callee past MAX_DEPTH unwinds. Every call site passes its argument
 * count in the word's low bits, and every entry checks its arity there
 * (CALLING_CONVENTION names this convention).
 *
 * Generated code refers to nothing but generated identifiers and the tables the linker
 * passes in ($.K constants, $.G global cells, $.P primitives, $.LAM lambda infos):
 * no name, string or datum from the program is ever spliced into the source, so IR
 * received from a peer cannot inject JavaScript (only integers, checked by the IR
 * checker, appear as literals).
 *
 * Why separate: it is the only pass that knows JavaScript; everything before it is
 * target independent.
 */
import {
  A_CONST, A_LOCAL, A_FREE, A_GLOBAL, A_SELF, A_FIX,
  T_PRIM, T_CLOSURE, T_GSET, T_GDEF,
  K_RETURN, K_TAIL, K_CALL, K_LET, K_FIX, K_IF, K_JOIN, K_JUMP, K_LOOP, forEachSite,
} from '../ir/wire.js';
import { CompilerBug } from './walk-core.js';
import { DEPTH_UNIT, ARGC_MASK, MAX_CALL_ARGUMENTS } from '../values.js';
import { inlinePrimitive, internalOps } from './inline-primitives.js';
import { typeLoop, emitTypedLoop } from './typed-loops.js';

/**
 * The JS stack the generated code may use before it is unwound to the driver, in units
 * of about 150 bytes (a small activation). Each activation adds its weight (frameWeight)
 * to the depth `d` it passes to its callees, so the bound is on bytes, not on calls:
 * with Node's default stack (~984 KB) a generated function with 4 locals overflows at
 * about 6,500 frames, with 64 at 1,560, with 256 at 450 (measured). 2,400 units is
 * about 360 KB, leaving the rest to the primitives and the host below and above.
 */
export const MAX_DEPTH = 2400;

/** The largest call word an entry accepts before it unwinds (depth MAX_DEPTH, any count). */
const MAX_WORD = MAX_DEPTH * DEPTH_UNIT + ARGC_MASK;

/**
 * The stack units of one activation of a clause: an interpreted frame takes about
 * 120 bytes plus 8 per register (locals and temporaries).
 * @param {any} cl
 */
export function frameWeight(cl) {
  return 1 + (cl.nlocals >> 4);
}

/**
 * The JavaScript of a unit, whole or in two parts. 'all' returns the table
 * `[[fast, resume], ...]`. The linker generates 'fast' at instantiation — it returns
 * `[[fast, ...], [S0 or null, ...]]` (the fast forms and the unit's closed closures) —
 * and 'resume' only when a frame of the unit is first resumed: most code never
 * suspends (a short program never resumes a frame of most of the runtime library), so
 * start-up generates and parses about half the text. The 'resume' part reads the fast
 * forms and closed closures of the instance from `$.L` and `$.S` (closures keep their
 * identity) and returns `[resume, ...]`.
 * @param {any} unit a checked wire unit
 * @param {'all'|'fast'|'resume'} [part]
 * @returns {string} the body of `new Function('$', body)`
 */
export function generateJs(unit, part = 'all') {
  /** @type {string[]} */
  const out = [];
  out.push(`'use strict';`);
  out.push(`const {U, R, CALL, Closure, Box, Pair, VOID, UNASSIGNED, push, sc, arity, mklist, gv, gset, gdef, unassigned, checkBound, EMPTY, Flonum} = $;`);
  unit.consts.forEach((/** @type {any} */ _, /** @type {number} */ i) => out.push(`const K${i} = $.K[${i}];`));
  unit.globals.forEach((/** @type {any} */ _, /** @type {number} */ i) => out.push(`const G${i} = $.G[${i}];`));
  unit.prims.forEach((/** @type {string} */ name, /** @type {number} */ i) => {
    if (!internalOps.has(name)) out.push(`const P${i} = $.P[${i}];`);
  });
  unit.lambdas.forEach((/** @type {any} */ _, /** @type {number} */ i) => out.push(`const LAM${i} = $.LAM[${i}];`));
  if (part === 'resume') {
    unit.lambdas.forEach((/** @type {any} */ lam, /** @type {number} */ i) => {
      out.push(`const L${i} = $.L[${i}];`);
      if (lam.nfree === 0) out.push(`const S${i} = $.S[${i}];`);
    });
  }
  /** @type {[string, string][]} */
  const table = [];
  unit.lambdas.forEach((/** @type {any} */ lam, /** @type {number} */ i) => {
    const gen = new LambdaGen(unit, lam, i, out);
    table.push(gen.emit(part));
  });
  // closures without free values are allocated once per unit instantiation
  if (part !== 'resume') {
    unit.lambdas.forEach((/** @type {any} */ lam, /** @type {number} */ i) => {
      if (lam.nfree === 0) out.push(`const S${i} = new Closure(L${i}, LAM${i}, EMPTY);`);
    });
  }
  if (part === 'all') out.push(`return [${table.map(([f, r]) => `[${f}, ${r}]`).join(', ')}];`);
  else if (part === 'fast') {
    const closed = unit.lambdas.map((/** @type {any} */ lam, /** @type {number} */ i) => (lam.nfree === 0 ? `S${i}` : 'null'));
    out.push(`return [[${table.map(([f]) => f).join(', ')}], [${closed.join(', ')}]];`);
  } else out.push(`return [${table.map(([, r]) => r).join(', ')}];`);
  return out.join('\n');
}

/**
 * The resume form of one lambda of a unit: the body of `new Function('$', body)`, which
 * returns that resume form. The linker generates it the first time a frame of that
 * lambda is resumed, so resuming one frame of a large unit (a library of thousands of
 * procedures, pre-empted once) generates and parses one procedure's resume form, not
 * the unit's. It declares only the unit's tables entries its text names (constants K,
 * globals G, primitives P, lambda infos LAM, fast forms L, closed closures S, read
 * from `$` as in 'resume').
 * @param {any} unit a checked wire unit @param {number} index the lambda
 * @returns {string}
 */
export function generateResumeOf(unit, index) {
  /** @type {string[]} */
  const body = [];
  const [, entry] = new LambdaGen(unit, unit.lambdas[index], index, body).emit('resume');
  const text = body.join('\n');
  const out = [`'use strict';`, `const {U, R, CALL, Closure, Box, Pair, VOID, UNASSIGNED, push, sc, arity, mklist, gv, gset, gdef, unassigned, checkBound, EMPTY, Flonum} = $;`];
  // generated code names table entries only as K3, G12, P0, LAM7, L7, S7 (integers from the IR)
  for (const name of new Set(text.match(/\b(?:K|G|P|LAM|L|S)\d+\b/g))) {
    const [, table, n] = /** @type {RegExpExecArray} */ (/^([A-Z]+)(\d+)$/.exec(name));
    if (table === 'P' && internalOps.has(unit.prims[Number(n)])) continue;
    out.push(`const ${name} = $.${table}[${n}];`);
  }
  out.push(text, `return ${entry};`);
  return out.join('\n');
}

class LambdaGen {
  /**
   * @param {any} unit @param {any} lam @param {number} index @param {string[]} out
   */
  constructor(unit, lam, index, out) {
    this.unit = unit;
    this.lam = lam;
    this.index = index;
    this.out = out;
    /** @type {Map<any[], number>} instruction → site number (for `//@lam:site` markers) */
    this.sites = new Map();
    forEachSite(lam, (ins, site) => this.sites.set(ins, site));
  }

  /**
   * A trailing comment naming the instruction's site, so the linker can map a line of
   * generated code back to a source location. Only integers are written.
   * @param {any[]} ins
   */
  marker(ins) {
    const site = this.sites.get(ins);
    return site === undefined ? '' : ` //@${this.index}:${site}`;
  }

  /**
   * Emit the functions of this lambda (fast forms, resume forms or both); returns the
   * names of its fast and resume entries.
   * @param {'all'|'fast'|'resume'} part
   * @returns {[string, string]}
   */
  emit(part) {
    const { lam, index } = this;
    const fast = part !== 'resume';
    const resume = part !== 'fast';
    if (lam.clauses.length === 1) {
      if (fast) this.emitFast(lam.clauses[0], `L${index}`);
      if (resume) this.emitResume(lam.clauses[0], `L${index}$r`);
      return [`L${index}`, `L${index}$r`];
    }
    // case-lambda: one fast form and one resume form per clause, plus dispatchers
    /** @type {string[]} */
    const cases = [];
    /** @type {string[]} */
    const resumes = [];
    let maxLabel = 0;
    lam.clauses.forEach((/** @type {any} */ cl, /** @type {number} */ k) => {
      if (fast) this.emitFast(cl, `L${index}_${k}`, true);
      if (resume) this.emitResume(cl, `L${index}$r${k}`);
      const test = cl.rest ? `n >= ${cl.nreq}` : `n === ${cl.nreq}`;
      cases.push(`  if (${test}) return L${index}_${k}.apply(this, arguments);`);
      maxLabel += countLabels(cl.body);
      resumes.push(`  if (fr.label <= ${maxLabel}) return L${index}$r${k}(fr, v);`);
    });
    if (fast) this.out.push(`function L${index}(d) {\n  const n = d & ${ARGC_MASK};\n${cases.join('\n')}\n  return arity(this, n);\n}`);
    if (resume) this.out.push(`function L${index}$r(fr, v) {\n${resumes.join('\n')}\n  throw new Error('bad frame label ' + fr.label);\n}`);
    return [`L${index}`, `L${index}$r`];
  }

  /**
   * @param {any} cl clause @param {string} name @param {boolean} [dispatched] arity already checked
   */
  emitFast(cl, name, dispatched = false) {
    const params = [];
    for (let i = 0; i < cl.nreq; i++) params.push(`l${i}`);
    const argList = cl.rest ? [...params, '...r'] : params;
    const lines = [];
    lines.push(`function ${name}(d${argList.map((p) => ', ' + p).join('')}) {`);
    // the arity check reads the count the caller put in the call word; a clause with a
    // rest list then clears it, so its calls add constants to d as a fixed clause's do
    if (!dispatched && !cl.rest) lines.push(`  if ((d & ${ARGC_MASK}) !== ${cl.nreq}) return arity(this, d & ${ARGC_MASK});`);
    else if (!dispatched && cl.nreq > 0) lines.push(`  if ((d & ${ARGC_MASK}) < ${cl.nreq}) return arity(this, d & ${ARGC_MASK});`);
    if (cl.rest) lines.push(`  d -= d & ${ARGC_MASK};`);
    const suspendArgs = cl.rest ? `[${params.map((p) => p + ', ').join('')}...r]` : `[${params.join(', ')}]`;
    const hasLoop = containsLoop(cl.body);
    lines.push(hasLoop
      ? `  if (d > ${MAX_WORD}) return sc(this, ${suspendArgs});`
      : `  if (--R.fuel < 0 || d > ${MAX_WORD}) return sc(this, ${suspendArgs});`);
    lines.push(`  const c = this;`);
    if (cl.rest) lines.push(`  let l${cl.nreq} = mklist(r);`);
    const first = cl.nreq + cl.rest;
    if (cl.nlocals > first) lines.push(`  let ${range(first, cl.nlocals).map((i) => 'l' + i).join(', ')};`);
    this.emitFreeLoads(cl.body, lines);
    const body = new BlockWriter(this, cl, 'fast');
    if (hasLoop) {
      const typing = typeLoop(this.unit, cl);
      if (typing) emitTypedLoop(this.unit, cl, typing, (n) => body.word(n), lines);
      lines.push(`  loop: for (;;) {`);
      lines.push(`    if (--R.fuel < 0) return sc(c, [${params.join(', ')}]);`);
      body.block(cl.body, '    ', lines);
      lines.push(`  }`);
    } else {
      body.block(cl.body, '  ', lines);
    }
    lines.push(`}`);
    this.out.push(lines.join('\n'));
  }

  /** @param {any[]} block @param {string[]} lines */
  emitFreeLoads(block, lines) {
    const used = new Set();
    walkAtoms(block, (a) => {
      if (a[0] === A_FREE) used.add(a[1]);
    });
    for (const i of [...used].sort((x, y) => x - y)) lines.push(`  const f${i} = c.fv[${i}];`);
  }

  /**
   * The resume form: a state machine over the return points and join points.
   * @param {any} cl @param {string} name
   */
  emitResume(cl, name) {
    const lines = [];
    lines.push(`function ${name}(fr, v) {`);
    lines.push(`  const c = fr.s[0], d = 0;`);
    if (cl.nlocals > 0) lines.push(`  let ${range(0, cl.nlocals).map((i) => 'l' + i).join(', ')};`);
    this.emitFreeLoads(cl.body, lines);
    const writer = new BlockWriter(this, cl, 'resume');
    /** @type {string[]} */
    const restore = [];
    writer.collectCalls(cl.body, (ins) => {
      const [, label, dest, live] = ins;
      const loads = live.map((/** @type {number} */ l, /** @type {number} */ k) => `l${l} = fr.s[${k + 1}]; `).join('');
      restore.push(`    case ${label}: ${loads}l${dest} = v; break;`);
    });
    lines.push(`  switch (fr.label) {`);
    lines.push(...restore);
    lines.push(`    default: throw new Error('bad frame label ' + fr.label);`);
    lines.push(`  }`);
    lines.push(`  let st = fr.label;`);
    lines.push(`  for (;;) switch (st) {`);
    writer.emitPieces(lines);
    lines.push(`    default: throw new Error('bad state ' + st);`);
    lines.push(`  }`);
    lines.push(`}`);
    this.out.push(lines.join('\n'));
  }
}

/** Writes blocks in fast (structured) or resume (state machine) style. */
class BlockWriter {
  /** @param {LambdaGen} gen @param {any} clause @param {'fast'|'resume'} mode */
  constructor(gen, clause, mode) {
    this.gen = gen;
    this.clause = clause;
    this.mode = mode;
    this.unit = gen.unit;
    this.weight = frameWeight(clause);
    /** the argument count in this activation's own `d`: the fast form of a fixed-arity clause keeps the caller's; a rest clause clears it, the resume form's d is 0 */
    this.ownCount = mode === 'fast' && !clause.rest ? clause.nreq : 0;
    /** resume mode: pieces still to emit, as [state, block, start index] */
    /** @type {[number, any[], number][]} */
    this.pieces = [];
    /** @type {Map<number, number>} join id → state number (resume mode) */
    this.joinStates = new Map();
    this.nextState = 100000;
  }

  /**
   * Resume mode: call `f` on every K_CALL of the clause, in order, and queue a piece
   * (a `case` of the state machine) for the code after each return point and each
   * join point. Every piece is known before any is emitted, because a resumed
   * activation may start inside a join's inner block and jump to the join.
   * @param {any[]} block @param {(ins: any[]) => void} f
   */
  collectCalls(block, f) {
    block.forEach((ins, i) => {
      if (ins[0] === K_CALL) {
        f(ins);
        this.pieces.push([ins[1], block, i + 1]);
      } else if (ins[0] === K_IF) {
        this.collectCalls(ins[2], f);
        this.collectCalls(ins[3], f);
      } else if (ins[0] === K_JOIN) {
        const state = this.nextState++;
        this.joinStates.set(ins[1], state);
        this.pieces.push([state, block, i + 1]);
        this.collectCalls(ins[3], f);
      }
    });
  }

  /** Resume mode: emit one `case` per return point and join point. @param {string[]} lines */
  emitPieces(lines) {
    for (let i = 0; i < this.pieces.length; i++) {
      const [state, block, start] = this.pieces[i];
      lines.push(`    case ${state}: {`);
      this.run(block, start, '      ', lines);
      lines.push(`    }`);
    }
  }

  /**
   * The call word passed to a callee of `argc` arguments: d plus one constant.
   * @param {number} argc @returns {string}
   */
  word(argc) {
    if (argc > MAX_CALL_ARGUMENTS) throw new CompilerBug(`generate-js: a call with ${argc} arguments (at most ${MAX_CALL_ARGUMENTS})`);
    return `d + ${this.weight * DEPTH_UNIT - this.ownCount + argc}`;
  }

  /**
   * Fast mode: emit a whole block.
   * @param {any[]} block @param {string} ind @param {string[]} lines
   */
  block(block, ind, lines) {
    this.run(block, 0, ind, lines);
  }

  /**
   * Emit instructions of `block` from `start` until a terminal (or, in resume mode,
   * until a return point or join ends the piece).
   * @param {any[]} block @param {number} start @param {string} ind @param {string[]} lines
   */
  run(block, start, ind, lines) {
    for (let i = start; i < block.length; i++) {
      const ins = block[i];
      switch (ins[0]) {
        case K_LET:
          lines.push((ins[1] < 0 ? `${ind}${this.triv(ins[2])};` : `${ind}l${ins[1]} = ${this.triv(ins[2])};`) + this.gen.marker(ins));
          break;
        case K_CALL: {
          const [, label, dest, live, f, args] = ins;
          const slots = ['c', ...live.map((/** @type {number} */ l) => 'l' + l)].join(', ');
          lines.push(`${ind}l${dest} = ${this.callee(f)}[CALL](${this.word(args.length)}${args.map((/** @type {any} */ a) => ', ' + this.atom(a)).join('')});${this.gen.marker(ins)}`);
          lines.push(`${ind}if (l${dest} === U) return push(LAM${this.gen.index}, ${label}, [${slots}]);`);
          if (this.mode === 'resume') {
            lines.push(`${ind}st = ${label}; continue;`);
            return;
          }
          break;
        }
        case K_FIX: {
          const binds = ins[1];
          for (const [l, lam] of binds) lines.push(`${ind}l${l} = new Closure(L${lam}, LAM${lam}, null);`);
          for (const [l, , fvs] of binds) lines.push(`${ind}l${l}.fv = [${fvs.map((/** @type {any} */ a) => this.atom(a)).join(', ')}];`);
          break;
        }
        case K_JOIN: {
          const [, j, , inner] = ins;
          if (this.mode === 'fast') {
            lines.push(`${ind}j${j}: {`);
            this.run(inner, 0, ind + '  ', lines);
            lines.push(`${ind}}`);
            break;
          }
          // the join's own code is a piece of its own (queued by collectCalls)
          this.run(inner, 0, ind, lines);
          return;
        }
        case K_RETURN:
          lines.push(`${ind}return ${this.triv(ins[1])};${this.gen.marker(ins)}`);
          return;
        case K_TAIL:
          lines.push(`${ind}return ${this.callee(ins[1])}[CALL](${this.word(ins[2].length)}${ins[2].map((/** @type {any} */ a) => ', ' + this.atom(a)).join('')});${this.gen.marker(ins)}`);
          return;
        case K_IF:
          // The then-block ends in a terminal, so the else-block follows the `if`
          // unnested: a chain of thousands of tests (a big `cond`) is flat JS, which
          // neither this loop nor V8's parser has to recurse through.
          lines.push(`${ind}if (${this.atom(ins[1])} !== false) {`);
          this.run(ins[2], 0, ind + '  ', lines);
          lines.push(`${ind}}`);
          block = ins[3];
          i = -1;
          break;
        case K_JUMP: {
          const [, j, a] = ins;
          const param = this.joinParam(block, j);
          if (param >= 0 && a !== null) lines.push(`${ind}l${param} = ${this.atom(a)};`);
          if (this.mode === 'fast') lines.push(`${ind}break j${j};`);
          else lines.push(`${ind}st = ${this.joinStates.get(j)}; continue;`);
          return;
        }
        case K_LOOP: {
          const args = ins[1].map((/** @type {any} */ a) => this.atom(a));
          if (this.mode === 'fast') {
            const temps = args.map((/** @type {string} */ a, /** @type {number} */ k) => `t${k} = ${a}`);
            if (args.length > 0) lines.push(`${ind}{ const ${temps.join(', ')}; ${args.map((/** @type {any} */ _, /** @type {number} */ k) => `l${k} = t${k};`).join(' ')} }`);
            lines.push(`${ind}continue loop;`);
          } else {
            lines.push(`${ind}return c[CALL](${this.word(args.length)}${args.map((/** @type {any} */ a) => ', ' + a).join('')});`);
          }
          return;
        }
        default:
          throw new CompilerBug(`generate-js: unknown instruction ${ins[0]}`);
      }
    }
    throw new CompilerBug('generate-js: block without a terminal');
  }

  /**
   * The parameter local of join j. Joins are found by searching the clause once.
   * @param {any[]} _block @param {number} j
   */
  joinParam(_block, j) {
    if (!this.joinParams) {
      /** @type {Map<number, number>} */
      this.joinParams = new Map();
      const scan = (/** @type {any[]} */ b) => {
        for (const ins of b) {
          if (ins[0] === K_JOIN) {
            this.joinParams?.set(ins[1], ins[2]);
            scan(ins[3]);
          } else if (ins[0] === K_IF) {
            scan(ins[2]);
            scan(ins[3]);
          }
        }
      };
      scan(this.clause.body);
    }
    const p = this.joinParams.get(j);
    if (p === undefined) throw new CompilerBug(`generate-js: unknown join j${j}`);
    return p;
  }

  /** An atom in operator position: a global's cell is read without the unbound check
   * (an unbound cell holds a value whose [CALL] signals the error). @param {any} a */
  callee(a) {
    return a[0] === A_GLOBAL ? `G${a[1]}.v` : this.atom(a);
  }

  /** @param {any} a @returns {string} */
  atom(a) {
    switch (a[0]) {
      case A_CONST: return `K${a[1]}`;
      case A_LOCAL: return `l${a[1]}`;
      case A_FREE: return `f${a[1]}`;
      case A_GLOBAL: return `gv(G${a[1]})`;
      case A_SELF: return 'c';
      case A_FIX: return a[1] < 0 ? `(${a[1]})` : String(a[1]);
      default: throw new CompilerBug(`generate-js: unknown atom ${a[0]}`);
    }
  }

  /** @param {any} t @returns {string} */
  triv(t) {
    switch (t[0]) {
      case T_PRIM: {
        const name = this.unit.prims[t[1]];
        const args = t.slice(2).map((/** @type {any} */ a) => this.atom(a));
        return inlinePrimitive(name, args, `P${t[1]}`);
      }
      case T_CLOSURE: {
        const lam = t[1];
        const fvs = t.slice(2).map((/** @type {any} */ a) => this.atom(a));
        return fvs.length === 0 ? `S${lam}` : `new Closure(L${lam}, LAM${lam}, [${fvs.join(', ')}])`;
      }
      case T_GSET: return `gset(G${t[1]}, ${this.atom(t[2])})`;
      case T_GDEF: return `gdef(G${t[1]}, ${this.atom(t[2])})`;
      default: return this.atom(t);
    }
  }
}

/** @param {number} a @param {number} b */
function range(a, b) {
  const r = [];
  for (let i = a; i < b; i++) r.push(i);
  return r;
}

/** @param {any[]} block */
function containsLoop(block) {
  for (const ins of block) {
    if (ins[0] === K_LOOP) return true;
    if (ins[0] === K_IF && (containsLoop(ins[2]) || containsLoop(ins[3]))) return true;
    if (ins[0] === K_JOIN && containsLoop(ins[3])) return true;
  }
  return false;
}

/** @param {any[]} block */
function countLabels(block) {
  let n = 0;
  for (const ins of block) {
    if (ins[0] === K_CALL) n++;
    else if (ins[0] === K_IF) n += countLabels(ins[2]) + countLabels(ins[3]);
    else if (ins[0] === K_JOIN) n += countLabels(ins[3]);
  }
  return n;
}

/**
 * Visit every atom in a block.
 * @param {any[]} block @param {(a: any[]) => void} f
 */
function walkAtoms(block, f) {
  const triv = (/** @type {any} */ t) => {
    if (t[0] === T_PRIM || t[0] === T_CLOSURE) t.slice(2).forEach(f);
    else if (t[0] === T_GSET || t[0] === T_GDEF) f(t[2]);
    else f(t);
  };
  for (const ins of block) {
    switch (ins[0]) {
      case K_LET: triv(ins[2]); break;
      case K_CALL: f(ins[4]); ins[5].forEach(f); break;
      case K_FIX: for (const [, , fvs] of ins[1]) fvs.forEach(f); break;
      case K_JOIN: walkAtoms(ins[3], f); break;
      case K_RETURN: triv(ins[1]); break;
      case K_TAIL: f(ins[1]); ins[2].forEach(f); break;
      case K_IF: f(ins[1]); walkAtoms(ins[2], f); walkAtoms(ins[3], f); break;
      case K_JUMP: if (ins[2]) f(ins[2]); break;
      case K_LOOP: ins[1].forEach(f); break;
    }
  }
}
