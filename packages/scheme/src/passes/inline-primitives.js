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
  '<': (args, fn) => (args.length === 2 ? fixnumCmp(args, '<', fn) : null),
  '>': (args, fn) => (args.length === 2 ? fixnumCmp(args, '>', fn) : null),
  '<=': (args, fn) => (args.length === 2 ? fixnumCmp(args, '<=', fn) : null),
  '>=': (args, fn) => (args.length === 2 ? fixnumCmp(args, '>=', fn) : null),
  '=': (args, fn) => (args.length === 2 ? fixnumCmp(args, '===', fn) : null),
};

/**
 * `a op b` on two small integers, else the general procedure. Both operands must be
 * JS numbers (exact integers); the result of + and - on two safe integers below 2^52
 * in magnitude is exact, and anything larger takes the slow path.
 * @param {string[]} args @param {string} op @param {string} fn
 */
function fixnumOp([a, b], op, fn) {
  if (!simple(a) || !simple(b)) return null;
  return `(typeof ${a} === 'number' && typeof ${b} === 'number' && (${a} ${op} ${b}) <= 4503599627370495 && (${a} ${op} ${b}) >= -4503599627370495 ? ${a} ${op} ${b} : ${fn}(${a}, ${b}))`;
}

/** @param {string[]} args @param {string} op @param {string} fn */
function fixnumCmp([a, b], op, fn) {
  if (!simple(a) || !simple(b)) return null;
  return `(typeof ${a} === 'number' && typeof ${b} === 'number' ? ${a} ${op} ${b} : ${fn}(${a}, ${b}))`;
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
