// @ts-check
/**
 * pass: convert-assignments : Core -> Core (no LocalSet)
 *
 *   (let ((x e)) ... (set! x v) ... x)   ⇒ (let ((x (%make-box e))) ... (%set-box! x v) ... (%unbox x))
 *   (lambda (x) ... (set! x v) ...)      ⇒ (lambda (x') (let ((x (%make-box x'))) ...))
 *
 * Why: after this pass every local variable is immutable, so closure conversion and
 * continuation frames may copy variable values freely. An assigned variable becomes a
 * location (a Box) shared by every closure and frame that captures it, which is what
 * Scheme requires when a continuation is re-entered or a closure outlives its frame.
 */
import { mapCore } from './walk-core.js';
import { assignedVars } from './fix-letrec.js';
import { PrimCall, LocalRef, Let, Var } from '../ir/core.js';

/** @param {any} node */
export function convertAssignments(node) {
  const assigned = assignedVars(node);
  if (assigned.size === 0) return node;
  return mapCore(node, (n, recur) => {
    switch (n.t) {
      case 'LocalRef':
        return assigned.has(n.v) ? PrimCall('%unbox', [n], n.loc) : n;
      case 'LocalSet':
        return PrimCall('%set-box!', [LocalRef(n.v, n.loc), recur(n.e)], n.loc);
      case 'Let':
        return {
          ...n,
          inits: n.inits.map((/** @type {any} */ e, /** @type {number} */ i) => (assigned.has(n.vars[i]) ? PrimCall('%make-box', [recur(e)], n.loc) : recur(e))),
          body: recur(n.body),
        };
      case 'Lambda': {
        const boxed = [...n.params, ...(n.rest ? [n.rest] : [])].filter((v) => assigned.has(v));
        if (boxed.length === 0) return undefined;
        const fresh = new Map(boxed.map((v) => [v, new Var(v.name)]));
        const rename = (/** @type {any} */ v) => fresh.get(v) ?? v;
        const body = Let(boxed, boxed.map((v) => PrimCall('%make-box', [LocalRef(rename(v), n.loc)], n.loc)), recur(n.body), n.loc);
        return { ...n, params: n.params.map(rename), rest: n.rest && rename(n.rest), body };
      }
      default:
        return undefined;
    }
  });
}
