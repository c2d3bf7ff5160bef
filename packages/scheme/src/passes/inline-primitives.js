// @ts-check
/**
 * Open-coding of primitives for generate-js: the JavaScript expression for a call of
 * primitive `name` on atoms `args`. The fast path is inline; anything unusual (a type
 * error, an overflow, a non-fixnum) falls back to the registered implementation `fn`,
 * which signals the error or computes the general case. Internal operations
 * (`%`-prefixed) introduced by the compiler's own passes are defined only here.
 *
 * Atoms are identifiers, literals or `gv(Gn)`; an atom is repeated in a template only
 * when it is a plain identifier or literal, so nothing is evaluated twice.
 *
 * Numbers: the arithmetic and comparisons of two arguments are open-coded for two
 * fixnums (JS numbers) and for two flonums (Flonum, a boxed double: the IEEE operation
 * on `.v`, then one allocation for an arithmetic result, none for a comparison); mixed
 * and other numbers take the general procedure. An integer literal operand is known to
 * be a fixnum (no type test), and `x + c`, `x - c` test only the bound the result moves
 * towards.
 */

/** An identifier: safe to repeat and to take a property of. @param {string} a */
const ident = (a) => /^[A-Za-z_$][\w$]*$/.test(a);
/** An identifier or an integer literal: safe to repeat. @param {string} a */
const simple = (a) => ident(a) || /^\d+$|^\(-\d+\)$/.test(a);

/** @type {Record<string, (a: string[], fn: string) => string | null>} */
const templates = {
  '%make-box': ([a]) => `new Box(${a})`,
  '%unbox': ([a]) => `${a}.v`,
  '%set-box!': ([a, b]) => `(${a}.v = ${b}, VOID)`,
  '%check-bound': ([a, b]) => (simple(a) ? `(${a} === UNASSIGNED ? unassigned(${b}) : ${a})` : `checkBound(${a}, ${b})`),
  'eq?': ([a, b]) => `(${a} === ${b})`,
  'not': ([a]) => `(${a} === false)`,
  'null?': ([a]) => `(${a} === null)`,
  'pair?': ([a]) => `(${a} instanceof Pair)`,
  'cons': ([a, b]) => `new Pair(${a}, ${b})`,
  'car': ([a], fn) => (ident(a) ? `(${a} instanceof Pair ? ${a}.car : ${fn}(${a}))` : null),
  'cdr': ([a], fn) => (ident(a) ? `(${a} instanceof Pair ? ${a}.cdr : ${fn}(${a}))` : null),
  'vector-ref': ([v, i], fn) =>
    ident(v) && simple(i) ? `(Array.isArray(${v}) && typeof ${i} === 'number' && ${i} >= 0 && ${i} < ${v}.length ? ${v}[${i}] : ${fn}(${v}, ${i}))` : null,
  '+': (args, fn) => (args.length === 2 ? fixnumOp(args, '+', fn) : null),
  '-': (args, fn) => (args.length === 2 ? fixnumOp(args, '-', fn) : null),
  '*': (args, fn) => (args.length === 2 ? fixnumMul(args, fn) : null),
  '/': (args, fn) => (args.length === 2 && simple(args[0]) && simple(args[1]) ? `(${flonumOp(args, '/')}${fn}(${args[0]}, ${args[1]}))` : null),
  '<': (args, fn) => (args.length === 2 ? fixnumCmp(args, '<', fn) : null),
  '>': (args, fn) => (args.length === 2 ? fixnumCmp(args, '>', fn) : null),
  '<=': (args, fn) => (args.length === 2 ? fixnumCmp(args, '<=', fn) : null),
  '>=': (args, fn) => (args.length === 2 ? fixnumCmp(args, '>=', fn) : null),
  '=': (args, fn) => (args.length === 2 ? fixnumCmp(args, '===', fn) : null),
};

/**
 * The flonum case of `a op b`, as the start of a conditional expression to which the
 * caller appends the other case: both operands Flonums, the result a new Flonum of the
 * IEEE operation, as the general procedure computes it (numbers/arithmetic.js). Empty
 * when an operand is an integer literal (never a flonum).
 * @param {string[]} args @param {string} op
 */
function flonumOp([a, b], op) {
  if (!ident(a) || !ident(b)) return '';
  return `${a} instanceof Flonum && ${b} instanceof Flonum ? new Flonum(${a}.v ${op} ${b}.v) : `;
}

/**
 * `a op b` on two small integers, else the general procedure. Both operands must be
 * JS numbers (exact integers); the result of + and - on two safe integers below 2^52
 * in magnitude is exact, and anything larger takes the slow path.
 * @param {string[]} args @param {string} op @param {string} fn
 */
function fixnumOp([a, b], op, fn) {
  if (!simple(a) || !simple(b)) return null;
  const x = literalValue(b) !== null ? a : op === '+' && literalValue(a) !== null ? b : null;
  if (x !== null && ident(x)) {
    // `x + c`, `c + x` or `x - c` with an inline integer c (|c| < 2^30, wire.js
    // MAX_INLINE_FIXNUM): x is a safe integer, so the exact result moves towards one
    // bound only, and only that bound is tested (and not the literal's type)
    const c = /** @type {number} */ (literalValue(x === a ? b : a));
    const up = (op === '+') === (c >= 0);
    const bound = up ? `(${a} ${op} ${b}) <= 4503599627370495` : `(${a} ${op} ${b}) >= -4503599627370495`;
    return `(typeof ${x} === 'number' && ${bound} ? ${a} ${op} ${b} : ${fn}(${a}, ${b}))`;
  }
  return `(${numberTests(a, b)} && (${a} ${op} ${b}) <= 4503599627370495 && (${a} ${op} ${b}) >= -4503599627370495 ? ${a} ${op} ${b} : ${flonumOp([a, b], op)}${fn}(${a}, ${b}))`;
}

/**
 * `a * b` on two small integers (no -0: `+ 0`), or two flonums, else the general procedure.
 * @param {string[]} args @param {string} fn
 */
function fixnumMul([a, b], fn) {
  if (!simple(a) || !simple(b)) return null;
  return `(${numberTests(a, b)} && (${a} * ${b}) <= 4503599627370495 && (${a} * ${b}) >= -4503599627370495 ? ${a} * ${b} + 0 : ${flonumOp([a, b], '*')}${fn}(${a}, ${b}))`;
}

/** The value of an integer literal atom (`5`, `(-5)`), else null. @param {string} a */
function literalValue(a) {
  return /^\d+$|^\(-\d+\)$/.test(a) ? Number(a.replace(/[()]/g, '')) : null;
}

/**
 * The test that both atoms are JS numbers (fixnums); a literal needs none.
 * @param {string} a @param {string} b
 */
function numberTests(a, b) {
  return [a, b].filter((x) => literalValue(x) === null).map((x) => `typeof ${x} === 'number'`).join(' && ') || 'true';
}

/**
 * A comparison of two small integers or two flonums (IEEE: false when either is NaN, and
 * 0.0 = -0.0, as `=` and `<` require), else the general procedure.
 * @param {string[]} args @param {string} op @param {string} fn
 */
function fixnumCmp([a, b], op, fn) {
  if (!simple(a) || !simple(b)) return null;
  const flonums = ident(a) && ident(b) ? `${a} instanceof Flonum && ${b} instanceof Flonum ? ${a}.v ${op} ${b}.v : ` : '';
  return `(${numberTests(a, b)} ? ${a} ${op} ${b} : ${flonums}${fn}(${a}, ${b}))`;
}

/** Names of the compiler's internal operations (not in the primitive registry). */
export const internalOps = new Set(['%make-box', '%unbox', '%set-box!', '%check-bound']);

/**
 * @param {string} name primitive name
 * @param {string[]} args JS expressions of the atoms
 * @param {string} fn JS name bound to the primitive's implementation
 * @returns {string}
 */
export function inlinePrimitive(name, args, fn) {
  const t = templates[name];
  const inline = t ? t(args, fn) : null;
  return inline ?? `${fn}(${args.join(', ')})`;
}
