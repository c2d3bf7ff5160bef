// @ts-check
/**
 * pass: fix-letrec : Core -> Core (+ Fix; no Letrec)
 *
 *   (letrec* ((f (lambda ...)) (g (lambda ...))) body)   ⇒ (fix ((f λ) (g λ)) body)
 *   (letrec* ((a e)) body), a not referenced in e         ⇒ (let ((a e)) body)
 *   (letrec* ((a e1) (b (f a))) ...) with f's λ using b   ⇒ b starts unassigned, is set!
 *        at its position, and every reference to it is checked: (%check-bound b 'b)
 *
 * Consecutive lambda initialisers form one `Fix` group (mutual recursion). A variable is
 * *unsafe* when some initialiser evaluated no later than its own binding (outside its
 * own lambda group) refers to it: only those pay for a run-time "used before its
 * definition" check. The common shapes — internal procedure definitions, and value
 * definitions that only look backwards — compile to plain bindings.
 *
 * Why separate: it decides the representation of recursive bindings once, so the CPS
 * conversion only ever sees Let, Fix and assignments.
 */
import { mapCore, forEachChild } from './walk-core.js';
import { Let, Seq, LocalSet, LocalRef, PrimCall, Const } from '../ir/core.js';
import { UNASSIGNED } from '../values.js';

/** @param {any} node */
export function fixLetrec(node) {
  const assigned = assignedVars(node);
  return mapCore(node, (n, recur) => {
    if (n.t !== 'Letrec') return undefined;
    return convertLetrec({ ...n, inits: n.inits.map(recur), body: recur(n.body) }, assigned);
  });
}

/**
 * @param {any} n a Letrec whose children are already converted
 * @param {Set<any>} assigned variables that are targets of set! anywhere
 */
function convertLetrec(n, assigned) {
  const { vars, inits } = n;
  const count = vars.length;
  const position = new Map(vars.map((/** @type {any} */ v, /** @type {number} */ i) => [v, i]));
  // group[i]: index of the first binding of i's lambda group (or i itself)
  const group = new Array(count);
  for (let i = 0; i < count; i++) {
    group[i] = i > 0 && inits[i].t === 'Lambda' && inits[i - 1].t === 'Lambda' ? group[i - 1] : i;
  }
  const unsafe = new Set();
  for (let i = 0; i < count; i++) {
    for (const v of referencedVars(inits[i])) {
      const j = position.get(v);
      if (j === undefined) continue;
      // evaluated before or at its binding, and not a sibling in the same lambda group
      if (j >= i && !(inits[i].t === 'Lambda' && group[j] === group[i])) unsafe.add(v);
    }
  }
  // A lambda group is bound all at once (Fix) or every member is declared first and
  // assigned at its position: one unsafe or assigned member forces the second form.
  const declared = new Set();
  for (let i = 0; i < count; i++) {
    if (!unsafe.has(vars[i]) && !(assigned.has(vars[i]) && inits[i].t === 'Lambda')) continue;
    for (let k = 0; k < count; k++) if (group[k] === group[i]) declared.add(vars[k]);
  }
  const check = (/** @type {any} */ e) => (unsafe.size === 0 ? e : guardRefs(e, unsafe));
  let result = check(n.body);
  for (let i = count - 1; i >= 0; ) {
    const g = group[i];
    if (inits[i].t === 'Lambda' && !declared.has(vars[i])) {
      result = { t: 'Fix', vars: vars.slice(g, i + 1), lambdas: inits.slice(g, i + 1).map(check), body: result, loc: n.loc };
      i = g - 1;
      continue;
    }
    const init = check(inits[i]);
    result = declared.has(vars[i])
      ? Seq([LocalSet(vars[i], init, n.loc), result], n.loc)
      : Let([vars[i]], [init], result, n.loc);
    i--;
  }
  const pending = vars.filter((/** @type {any} */ v) => declared.has(v));
  return pending.length === 0 ? result : Let(pending, pending.map(() => Const(UNASSIGNED)), result, n.loc);
}

/**
 * Every Var that is the target of a LocalSet anywhere in `node`.
 * @param {any} node @returns {Set<any>}
 */
export function assignedVars(node) {
  const out = new Set();
  const stack = [node];
  while (stack.length > 0) {
    const m = stack.pop();
    if (m.t === 'LocalSet') out.add(m.v);
    forEachChild(m, (c) => stack.push(c));
  }
  return out;
}

/**
 * Every Var referenced (read or assigned) anywhere inside `e`.
 * @param {any} e @returns {Set<any>}
 */
function referencedVars(e) {
  const out = new Set();
  const stack = [e];
  while (stack.length > 0) {
    const m = stack.pop();
    if (m.t === 'LocalRef' || m.t === 'LocalSet') out.add(m.v);
    forEachChild(m, (c) => stack.push(c));
  }
  return out;
}

/**
 * Wrap each read of an unsafe variable in a check that it has been assigned.
 * @param {any} e @param {Set<any>} unsafe
 */
function guardRefs(e, unsafe) {
  return mapCore(e, (m) => {
    if (m.t === 'LocalRef' && unsafe.has(m.v)) {
      return PrimCall('%check-bound', [LocalRef(m.v, m.loc), Const(m.v.name)], m.loc);
    }
    return undefined;
  });
}
