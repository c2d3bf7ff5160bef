// @ts-check
/**
 * `define-record-type` (R7RS §5.5), a definition:
 *
 *   (define-record-type <point> (make-point x y) point? (x point-x) (y point-y set-point-y!) (z point-z))
 *   ⇒ (define <point> (rt::%make-record-type '<point> '#(x y z) ordinal))
 *     (define make-point (lambda (x y) (rt::%make-record <point> x y #f)))
 *     (define point? (lambda (o) (rt::%record? o <point>)))
 *     (define point-x (lambda (o) (rt::%record-ref o <point> 0 'point-x)))
 *     (define set-point-y! (lambda (o v) (rt::%record-set! o <point> 1 v 'set-point-y!)))
 *
 * `ordinal` counts the define-record-type forms of the unit (0, 1, ...), so the runtime
 * can give each type a uid from the unit's hash. Fields the constructor does not take
 * start as #f. The constructor spec may also be a bare name (all fields, in order, an
 * SRFI 99 extension) or #f (no constructor); the predicate may be #f.
 */
import { Pair } from '../values.js';
import { Var, Lambda, Const, LocalRef } from '../ir/core.js';
import { isIdentifier, rootSym, strip } from './hygiene.js';
import { listOf, rtCall, refTo } from './util.js';
import { syntaxError } from './errors.js';

/** @typedef {import('./hygiene.js').Identifier} Identifier */
/** @typedef {import('../ir/core.js').Loc} Loc */

const WHO = 'define-record-type';

/**
 * @typedef {object} RecordSpec
 * @property {Identifier} type
 * @property {{id: Identifier, fields: number[]}|null} ctor  field indexes the constructor takes
 * @property {Identifier|null} pred
 * @property {{name: import('../values.js').Sym, acc: Identifier|null, mod: Identifier|null}[]} fields
 */

/**
 * @param {any} x the form @param {Loc|null} loc @returns {RecordSpec}
 */
export function parseRecordType(x, loc) {
  const ops = listOf(x.cdr, WHO, x, loc);
  if (ops.length < 3) syntaxError(WHO, 'expected (define-record-type <name> (constructor field ...) predicate (field accessor [modifier]) ...)', x, loc);
  const [type, ctorSpec, pred, ...fieldSpecs] = ops;
  if (!isIdentifier(type)) syntaxError(WHO, 'the type name must be an identifier', x, loc);
  if (pred !== false && !isIdentifier(pred)) syntaxError(WHO, 'the predicate name must be an identifier', x, loc);
  const fields = fieldSpecs.map((f) => {
    const parts = listOf(f, WHO, x, loc, 'a field must be (field accessor [modifier])');
    if (parts.length < 1 || parts.length > 3 || !parts.every(isIdentifier)) {
      syntaxError(WHO, 'a field must be (field accessor [modifier])', f, loc);
    }
    return { name: rootSym(parts[0]), acc: parts[1] ?? null, mod: parts[2] ?? null };
  });
  fields.forEach((f, i) => {
    if (fields.findIndex((g) => g.name === f.name) !== i) syntaxError(WHO, `field ${f.name.name} appears twice`, x, loc);
  });
  let ctor = null;
  if (ctorSpec instanceof Pair) {
    const [id, ...names] = listOf(ctorSpec, WHO, x, loc);
    if (!isIdentifier(id)) syntaxError(WHO, 'the constructor name must be an identifier', x, loc);
    const idx = names.map((n) => {
      const i = isIdentifier(n) ? fields.findIndex((f) => f.name === rootSym(n)) : -1;
      if (i < 0) syntaxError(WHO, `constructor argument ${isIdentifier(n) ? rootSym(n).name : n} is not a field`, x, loc);
      return i;
    });
    idx.forEach((i, k) => {
      if (idx.indexOf(i) !== k) syntaxError(WHO, `field ${fields[i].name.name} appears twice in the constructor`, x, loc);
    });
    ctor = { id, fields: idx };
  } else if (isIdentifier(ctorSpec)) {
    ctor = { id: ctorSpec, fields: fields.map((_, i) => i) };
  } else if (ctorSpec !== false) {
    syntaxError(WHO, 'the constructor must be (name field ...), a name or #f', x, loc);
  }
  return { type, ctor, pred: pred === false ? null : pred, fields };
}

/**
 * The definitions, as {target, node} bindings in definition order.
 * @param {RecordSpec} spec @param {any} targets from definitions.js
 * @param {number} ordinal @param {any} _env @param {any} _u @param {Loc|null} loc
 */
export function recordBindings(spec, targets, ordinal, _env, _u, loc) {
  const typeRef = () => refTo(targets.type, loc);
  const q = (/** @type {any} */ v) => Const(v, loc);
  const out = [];
  const fieldNames = spec.fields.map((f) => f.name);
  out.push({
    target: targets.type,
    node: rtCall('%make-record-type', [q(strip(spec.type)), q(fieldNames), q(ordinal)], loc),
  });
  if (spec.ctor) {
    const params = spec.ctor.fields.map((i) => new Var(fieldNames[i].name));
    const vals = spec.fields.map((_, i) => {
      const k = /** @type {{fields: number[]}} */ (spec.ctor).fields.indexOf(i);
      return k >= 0 ? LocalRef(params[k], loc) : q(false);
    });
    const name = rootSym(spec.ctor.id).name;
    out.push({ target: targets.ctor, node: Lambda(params, null, rtCall('%make-record', [typeRef(), ...vals], loc), name, loc) });
  }
  if (spec.pred) {
    const o = new Var('obj');
    out.push({ target: targets.pred, node: Lambda([o], null, rtCall('%record?', [LocalRef(o, loc), typeRef()], loc), rootSym(spec.pred).name, loc) });
  }
  spec.fields.forEach((f, i) => {
    if (f.acc) {
      const o = new Var('obj');
      const name = rootSym(f.acc);
      const body = rtCall('%record-ref', [LocalRef(o, loc), typeRef(), q(i), q(name)], loc);
      out.push({ target: targets.fields[i].acc, node: Lambda([o], null, body, name.name, loc) });
    }
    if (f.mod) {
      const o = new Var('obj');
      const v = new Var('value');
      const name = rootSym(f.mod);
      const body = rtCall('%record-set!', [LocalRef(o, loc), typeRef(), q(i), LocalRef(v, loc), q(name)], loc);
      out.push({ target: targets.fields[i].mod, node: Lambda([o, v], null, body, name.name, loc) });
    }
  });
  return out;
}
