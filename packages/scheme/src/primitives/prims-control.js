// @ts-check
/**
 * Primitives that read or write the running thread's dynamic state — the
 * dynamic-wind list, the exception handler stack, the parameter bindings — plus
 * multiple values, promises' and parameters' representation helpers and record
 * operations. They are ordinary primitives (they never call Scheme code and never
 * suspend): the Scheme prelude builds dynamic-wind, raise, guard, parameterize and
 * call/cc on top of them, so every continuation stays data.
 */
import { definePrimitive } from '../engine/registry.js';
import { R } from '../engine/engine.js';
import {
  Values, VOID, Pair, Closure, Record, RecordType, Sym, CALL, ErrorObject,
  schemeErrorOf, listToArray, arrayToList, isList,
} from '../values.js';
import { internRecordType, registerValueCodec, CodecError, TAG_PARAMETER } from '../codec/index.js';

/** @returns {any} */
function thread() {
  const th = R.thread;
  if (th === null) schemeErrorOf('internal', 'dynamic-state', 'no Scheme thread is running');
  return th;
}

// ---------------------------------------------------------------- dynamic state
definePrimitive('%winders', 0, 0, () => thread().winders);
definePrimitive('%set-winders!', 1, 1, (/** @type {any} */ w) => {
  thread().winders = w;
  return VOID;
});
definePrimitive('%handlers', 0, 0, () => thread().handlers);
definePrimitive('%set-handlers!', 1, 1, (/** @type {any} */ h) => {
  thread().handlers = h;
  return VOID;
});
definePrimitive('%params', 0, 0, () => thread().params);
definePrimitive('%set-params!', 1, 1, (/** @type {any} */ p) => {
  thread().params = p;
  return VOID;
});

// ---------------------------------------------------------------- multiple values
definePrimitive('values', 0, -1, (/** @type {any[]} */ ...vals) => (vals.length === 1 ? vals[0] : new Values(vals)), { pure: true });
definePrimitive('%values?', 1, 1, (/** @type {any} */ v) => v instanceof Values, { pure: true });
definePrimitive('%values->list', 1, 1, (/** @type {any} */ v) => arrayToList(v.vals), { pure: true });

// ---------------------------------------------------------------- procedures
definePrimitive('procedure?', 1, 1, (/** @type {any} */ x) => x instanceof Closure, { pure: true });

// ---------------------------------------------------------------- parameters
/**
 * A parameter's identity and default. Parameter objects are closures of the builtin
 * lambda `parameter` whose only free value is the ParamKey, so they serialize like
 * any procedure; the binding in effect is looked up in the thread's `params` alist.
 */
export class ParamKey {
  /**
   * @param {any} value @param {any} converter a procedure or #f
   * @param {string} [uid] names the parameter across nodes (generated when absent)
   */
  constructor(value, converter, uid) {
    this.value = value;
    this.converter = converter;
    this.uid = uid ?? `${sessionId}:${++paramCounter}`;
    paramKeys.set(this.uid, new WeakRef(this));
  }
}

/** Parameter keys by uid, so a parameter sent away and back is the same parameter. */
const paramKeys = new Map();
let paramCounter = 0;
/** Distinguishes this JS realm's parameters from those made elsewhere. */
const sessionId = Math.random().toString(36).slice(2, 10) + Date.now().toString(36);

/**
 * The parameter key with this uid: the local one if this realm has it, else a new one
 * holding the transmitted default.
 * @param {string} uid @param {any} value @param {any} converter
 */
function internParamKey(uid, value, converter) {
  const existing = paramKeys.get(uid)?.deref();
  return existing ?? new ParamKey(value, converter, uid);
}

registerValueCodec({
  cls: ParamKey,
  tag: TAG_PARAMETER,
  shareable: true,
  // the standard parameters (uid 'rt:...') exist on every node: send only their name
  encode: (k) => (k.uid.startsWith('rt:') ? [k.uid, false, false] : [k.uid, k.value, k.converter]),
  decode: ([uid, value, converter]) => {
    if (typeof uid !== 'string') throw new CodecError('parameter uid must be a string');
    return internParamKey(uid, value, converter);
  },
});

/** @type {any} set by builtins.js: the LambdaInfo shared by all parameter objects */
export const parameterLambda = { lam: /** @type {any} */ (null) };

/**
 * The code of every parameter object: `(p)` returns the binding in effect.
 * @this {Closure} @param {number} _d
 */
export function parameterCode(_d) {
  if (arguments.length !== 1) schemeErrorOf('arity', 'parameter', `a parameter takes no arguments, got ${arguments.length - 1}`);
  return parameterValue(/** @type {any} */ (this).fv[0]);
}

/** @param {ParamKey} key */
export function parameterValue(key) {
  const th = R.thread;
  for (let p = th === null ? null : th.params; p !== null; p = p.cdr) {
    if (p.car.car === key) return p.car.cdr;
  }
  return key.value;
}

/** @param {any} value @param {any} converter @param {string} [uid] */
export function makeParameter(value, converter, uid) {
  return new Closure(parameterCode, parameterLambda.lam, [new ParamKey(value, converter, uid)]);
}

/** @param {any} p */
function paramKeyOf(p) {
  if (p instanceof Closure && p.fv && p.fv[0] instanceof ParamKey) return p.fv[0];
  return schemeErrorOf('type', 'parameterize', 'expected a parameter object', p);
}

definePrimitive('%make-parameter', 2, 2, makeParameter);
definePrimitive('%parameter-converter', 1, 1, (/** @type {any} */ p) => paramKeyOf(p).converter);
definePrimitive('%params-extend', 3, 3, (/** @type {any} */ alist, /** @type {any} */ params, /** @type {any} */ vals) => {
  const ps = listToArray(params, 'parameterize');
  const vs = listToArray(vals, 'parameterize');
  let out = alist;
  for (let i = ps.length - 1; i >= 0; i--) out = new Pair(new Pair(paramKeyOf(ps[i]), vs[i]), out);
  return out;
});

// ---------------------------------------------------------------- records
definePrimitive('%make-record-type', 4, 4, (/** @type {any} */ name, /** @type {any} */ fields, /** @type {any} */ ordinal, /** @type {any} */ unitHash) => {
  const fieldNames = Array.from(fields, (f) => (f instanceof Sym ? f.name : String(f)));
  const typeName = name instanceof Sym ? name.name : String(name);
  return internRecordType(`${unitHash}:${ordinal}`, typeName, fieldNames);
});
definePrimitive('%make-record', 1, -1, (/** @type {any} */ rtd, /** @type {any[]} */ ...vals) => new Record(rtd, vals));
definePrimitive('%record?', 2, 2, (/** @type {any} */ x, /** @type {any} */ rtd) => x instanceof Record && x.rtd === rtd, { pure: true });
definePrimitive('%record-ref', 4, 4, (/** @type {any} */ x, /** @type {any} */ rtd, /** @type {any} */ i, /** @type {any} */ who) => {
  if (x instanceof Record && x.rtd === rtd) return x.f[i];
  return schemeErrorOf('type', who instanceof Sym ? who.name : String(who), `expected a record of type ${rtd.name}`, x);
});
definePrimitive('%record-set!', 5, 5, (/** @type {any} */ x, /** @type {any} */ rtd, /** @type {any} */ i, /** @type {any} */ v, /** @type {any} */ who) => {
  if (x instanceof Record && x.rtd === rtd) {
    x.f[i] = v;
    return VOID;
  }
  return schemeErrorOf('type', who instanceof Sym ? who.name : String(who), `expected a record of type ${rtd.name}`, x);
});
definePrimitive('record?', 1, 1, (/** @type {any} */ x) => x instanceof Record, { pure: true });
definePrimitive('record-type-name', 1, 1, (/** @type {any} */ x) => (x instanceof Record ? Sym.intern(x.rtd.name) : schemeErrorOf('type', 'record-type-name', 'expected a record', x)));

// ---------------------------------------------------------------- errors
definePrimitive('%make-error', 4, 4, (/** @type {any} */ message, /** @type {any} */ irritants, /** @type {any} */ kind, /** @type {any} */ who) =>
  new ErrorObject(String(message), irritants, kind instanceof Sym ? kind.name : String(kind), who instanceof Sym ? who.name : who === false ? null : String(who)));

/**
 * `(%error kind who message irritant ...)`: what the prelude's procedures signal bad
 * arguments with, exactly as a JS primitive does (a thrown SchemeError, so the error
 * carries the location of the user's call and is not continuable), e.g.
 * `(%error 'type 'map "expected a list" 5)`.
 */
definePrimitive('%error', 3, -1, (/** @type {any} */ kind, /** @type {any} */ who, /** @type {any} */ message, /** @type {any[]} */ ...irritants) =>
  schemeErrorOf(kind instanceof Sym ? kind.name : String(kind), who instanceof Sym ? who.name : String(who), String(message), ...irritants));

// ---------------------------------------------------------------- misc
definePrimitive('%list?', 1, 1, isList, { pure: true });
definePrimitive('%procedure-name', 1, 1, (/** @type {any} */ p) => (p instanceof Closure ? p.lam.name : false));
definePrimitive('%callable?', 1, 1, (/** @type {any} */ x) => x !== null && x !== undefined && x[CALL] !== /** @type {{[k: symbol]: unknown}} */ (Object.prototype)[CALL], { pure: true });
export { RecordType };
