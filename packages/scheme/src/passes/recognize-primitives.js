// @ts-check
/**
 * pass: recognize-primitives : Core -> Core (+ PrimCall)
 *
 *   (rt::car x)                  ⇒ (%car x)        when `car` is a registered primitive
 *                                                   and the argument count fits its arity
 *   ((lambda (a b) body) x y)    ⇒ (let ((a x) (b y)) body)
 *
 * Why a pass of its own: it is the only place that knows which runtime bindings are
 * JavaScript primitives (called directly, never suspending) and which are Scheme or
 * control procedures (called through the closure protocol). Bindings in the 'rt'
 * namespace are immutable, so the rewrite is always sound. A call with the wrong number
 * of arguments is left as an ordinary call: it raises the arity error at run time, with
 * the location, as any other call would.
 */
import { mapCore } from './walk-core.js';
import { PrimCall, Let, Const } from '../ir/core.js';
import { UNIT_HASH } from '../values.js';

/**
 * @param {any} node a Core node
 * @param {Map<string, {min: number, max: number}>} prims the primitive registry
 */
export function recognizePrimitives(node, prims) {
  return mapCore(node, (n, recur) => {
    if (n.t !== 'Call') return undefined;
    const fn = n.fn;
    if (fn.t === 'GlobalRef' && fn.g.ns === 'rt') {
      const p = prims.get(fn.g.name);
      const argc = n.args.length;
      if (fn.g.name === '%make-record-type' && argc === 3) {
        // record type ids are made unique by the hash of the unit that defines them
        return PrimCall(fn.g.name, [...n.args.map(recur), Const(UNIT_HASH, n.loc)], n.loc);
      }
      if (p && argc >= p.min && (p.max < 0 || argc <= p.max)) {
        return PrimCall(fn.g.name, n.args.map(recur), n.loc);
      }
    }
    if (fn.t === 'Lambda' && fn.rest === null && fn.params.length === n.args.length) {
      return Let(fn.params, n.args.map(recur), recur(fn.body), n.loc);
    }
    return undefined;
  });
}
