// @ts-check
/**
 * What code received from another node may do. It may name any runtime procedure this
 * node has (`policy`, checked on its IR before it is compiled) except the denied ones
 * (DEFAULT_DENIED: the file system, the host's environment and command line, leaving
 * the host process, evaluation of text); those are linked to stand-ins that raise an
 * error if called (`instantiate`'s deny option), so a program that uses the file system
 * in its main body can still ship its other closures.
 *
 * Runtime code is this node's own, linked to the real procedures, so a received value
 * could otherwise reach a denied procedure through it (a closure over `delete-file`, or
 * over runtime code that calls it, with free values of the sender's choosing). Invariant:
 * every closure or frame decoded from another node's bytes gets its code through
 * `receivedCode`, which gives runtime units a guarded view (made once per unit,
 * `guardedUnits`): denied lambdas, and the top level of each runtime library, decode to
 * stand-ins that raise an error naming the procedure.
 *
 * `receivedCode` and `policy` are Distribution's methods (`this` is the Distribution), moved here whole.
 */
import { primitives, rtEnv, runtimeUnits, builtinUnit } from '@termite/scheme/internal';
import { schemeErrorOf } from '@termite/scheme';
import { resolveCode } from '../code.js';

/** The compiler's internal operations (see passes/inline-primitives.js). */
const internalOpNames = new Set(['%make-box', '%unbox', '%set-box!', '%check-bound']);

/**
 * Runtime procedures a node does not let code from elsewhere call (the allowed
 * library is every runtime procedure except these): the file system, the host's
 * environment and command line, leaving the host process, and evaluation of text.
 */
export const DEFAULT_DENIED = new Set([
  'open-input-file', 'open-output-file', 'open-binary-input-file', 'open-binary-output-file',
  'call-with-input-file', 'call-with-output-file', 'with-input-from-file', 'with-output-to-file',
  'delete-file', 'file-exists?', 'load', 'exit', 'emergency-exit', '%exit', 'command-line',
  'get-environment-variable', 'get-environment-variables', 'eval', 'environment',
]);

/** @typedef {import('../distribution.js').Distribution} Distribution */

/**
 * The code a closure or frame received from another node runs. Runtime code is this
 * node's own, linked to the real procedures, so received values could otherwise reach
 * a denied procedure (a closure over `delete-file`, or over runtime code that calls
 * it, with free values of the sender's choosing): such lambdas, and the top level of
 * each runtime library, decode to stand-ins that raise an error naming the procedure.
 * @param {string} hash @param {string} env
 * @this {Distribution}
 */
export function receivedCode(hash, env) {
  const unit = resolveCode(hash, env);
  if (unit !== builtinUnit && runtimeUnits.get(hash) !== unit) return unit;
  let view = this.guardedUnits.get(unit);
  if (view !== undefined) return view;
  const denied = this.denied;
  if (unit === builtinUnit) {
    /** @type {Map<string, any>} */
    const standIns = new Map();
    view = {
      lams: [],
      lamsByName: {
        get: (/** @type {string} */ name) => {
          const lam = builtinUnit.lamsByName.get(name);
          if (lam === undefined || !denied.has(name)) return lam;
          if (!standIns.has(name)) standIns.set(name, deniedLambda(lam, name, `${name} is not allowed for code received from another node`));
          return standIns.get(name);
        },
      },
    };
  } else {
    view = {
      lamsByName: unit.lamsByName,
      lams: unit.lams.map((/** @type {any} */ lam, /** @type {number} */ i) => {
        if (i === 0) return deniedLambda(lam, lam.name, `the top level of runtime library ${unit.wire.name} cannot be run by another node`);
        const uses = denied.has(lam.name) ? lam.name : deniedNameIn(unit.wire, i, denied);
        if (uses === null) return lam;
        return deniedLambda(lam, uses, uses === lam.name ? `${uses} is not allowed for code received from another node` : `${lam.name} calls ${uses}, which is not allowed for code received from another node`);
      }),
    };
  }
  this.guardedUnits.set(unit, view);
  return view;
}

/**
 * The allowed library for received code: every runtime procedure this node has.
 * A unit naming anything else is refused. Procedures of the denied set are linked to
 * stand-ins that raise an error if called (`instantiate`'s deny option), so a program
 * that uses the file system in its main body can still ship its other closures.
 * A unit writes (defines, assigns) only its own environment's globals: a program's '.',
 * and a library's code its own namespace `own` too — never the runtime's nor another
 * library's, which every program on this node shares.
 * @param {string|null} [own] the library namespace whose code the unit is, if any
 * @this {Distribution}
 */
export function policy(own = null) {
  return {
    primitiveAllowed: (/** @type {string} */ name) => primitives.has(name) || internalOpNames.has(name),
    globalAllowed: (/** @type {string} */ ns, /** @type {string} */ name) => (ns === 'rt' ? rtEnv.has(name) : ns === '.' || ns.startsWith('lib:')),
    globalAssignable: (/** @type {string} */ ns) => ns === '.' || ns === own,
  };
}

/**
 * A lambda that raises instead of running (called, or resumed as a frame); it keeps
 * its unit and index, so it still names the same code if sent on.
 * @param {any} lam @param {string} who @param {string} message
 */
function deniedLambda(lam, who, message) {
  const raise = () => schemeErrorOf('denied', who, message);
  return { ...lam, fast: raise, resume: raise };
}

/**
 * The first denied runtime procedure or primitive lambda `li` of a (trusted, well-formed)
 * wire unit names in its body, or null.
 * @param {any} wire @param {number} li @param {Set<string>} denied
 */
function deniedNameIn(wire, li, denied) {
  /** @type {string|null} */
  let found = null;
  const name = (/** @type {string} */ n) => (denied.has(n) ? (found = n) !== null : false);
  const global = (/** @type {number} */ g) => wire.globals[g][0] === 'rt' && name(wire.globals[g][1]);
  const atom = (/** @type {any[]} */ a) => a[0] === 3 /* A_GLOBAL */ && global(a[1]);
  const atoms = (/** @type {any[]} */ as) => as.some(atom);
  const triv = (/** @type {any[]} */ t) => {
    switch (t[0]) {
      case 10: return name(wire.prims[t[1]]) || atoms(t.slice(2)); // T_PRIM
      case 11: return atoms(t.slice(2)); // T_CLOSURE
      case 12: case 13: return global(t[1]) || atom(t[2]); // T_GSET, T_GDEF
      default: return atom(t);
    }
  };
  /** @type {(b: any[]) => boolean} */
  const block = (b) => b.some((ins) => {
    switch (ins[0]) {
      case 20: return triv(ins[1]); // K_RETURN
      case 21: return atom(ins[1]) || atoms(ins[2]); // K_TAIL
      case 22: return atom(ins[4]) || atoms(ins[5]); // K_CALL
      case 23: return triv(ins[2]); // K_LET
      case 24: return ins[1].some((/** @type {any[]} */ b) => atoms(b[2])); // K_FIX
      case 25: return atom(ins[1]) || block(ins[2]) || block(ins[3]); // K_IF
      case 26: return block(ins[3]); // K_JOIN
      case 27: return ins[2] !== null && atom(ins[2]); // K_JUMP
      case 28: return atoms(ins[1]); // K_LOOP
      default: return false;
    }
  });
  wire.lambdas[li].clauses.some((/** @type {any} */ c) => block(c.body));
  return found;
}

