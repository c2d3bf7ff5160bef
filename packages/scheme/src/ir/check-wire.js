// @ts-check
/**
 * The receiver's check of wire IR (L3), run on every unit before JavaScript is
 * generated from it — IR may come from another node and must not be trusted.
 *
 * It verifies the unit is well formed: every opcode known, every index an integer
 * within its table (constants, globals, primitives, lambdas, locals, free values,
 * join points, labels unique), every block ending in exactly one terminal, every
 * local written before... (not required: locals start undefined and the compiler never
 * reads one before writing it; a hostile unit reading one only gets `undefined`
 * inside its own activation, which generated code treats as a value like any other),
 * and that every global it names is in the set the receiver allows, and every global it
 * defines or assigns is one the receiver lets it write (`globalAssignable`: a received
 * program may write only its own environment's globals, never the runtime's or a
 * library's). Generated code splices only integers from the IR, so a unit that passes
 * cannot inject JavaScript.
 */
import {
  WIRE_VERSION, A_CONST, A_LOCAL, A_FREE, A_GLOBAL, A_SELF, A_FIX, MAX_INLINE_FIXNUM,
  T_PRIM, T_CLOSURE, T_GSET, T_GDEF,
  K_RETURN, K_TAIL, K_CALL, K_LET, K_FIX, K_IF, K_JOIN, K_JUMP, K_LOOP, IRCheckError,
} from './wire.js';

/**
 * @typedef {object} CheckPolicy
 * @property {(name: string) => boolean} primitiveAllowed
 * @property {(ns: string, name: string) => boolean} globalAllowed
 * @property {(ns: string, name: string) => boolean} [globalAssignable] the globals a
 *   T_GSET or T_GDEF may target (absent: any the unit may name)
 */

/**
 * @param {any} unit
 * @param {CheckPolicy} policy
 * @throws {IRCheckError}
 */
export function checkWire(unit, policy) {
  const fail = (/** @type {string} */ m) => {
    throw new IRCheckError(m);
  };
  if (!unit || typeof unit !== 'object') fail('unit is not an object');
  if (unit.v !== WIRE_VERSION) fail(`IR version ${unit.v} is not supported (this node reads version ${WIRE_VERSION})`);
  for (const key of ['consts', 'globals', 'prims', 'lambdas', 'requires']) {
    if (!Array.isArray(unit[key])) fail(`unit.${key} is not an array`);
  }
  unit.globals.forEach((/** @type {any} */ g, /** @type {number} */ i) => {
    if (!Array.isArray(g) || g.length !== 2 || typeof g[0] !== 'string' || typeof g[1] !== 'string') fail(`global ${i} is malformed`);
    if (!policy.globalAllowed(g[0], g[1])) fail(`global ${g[0] === 'rt' ? '' : g[0] + '::'}${g[1]} is not in this node's allowed library`);
  });
  unit.prims.forEach((/** @type {any} */ p, /** @type {number} */ i) => {
    if (typeof p !== 'string') fail(`primitive ${i} is malformed`);
    if (!policy.primitiveAllowed(p)) fail(`primitive ${p} is not in this node's allowed library`);
  });
  if (unit.lambdas.length === 0) fail('unit has no lambdas');
  // a unit's writable globals, decided once per global (not per assignment)
  const assignable = policy.globalAssignable ? unit.globals.map((/** @type {string[]} */ g) => /** @type {any} */ (policy).globalAssignable(g[0], g[1])) : null;
  unit.lambdas.forEach((/** @type {any} */ lam, /** @type {number} */ li) => checkLam(unit, lam, li, fail, assignable));
  const top = unit.lambdas[0];
  if (top.nfree !== 0 || top.clauses.length !== 1 || top.clauses[0].nreq !== 0 || top.clauses[0].rest !== 0) {
    fail('lambda 0 must be a thunk without free variables');
  }
}

/**
 * @param {any} unit @param {any} lam @param {number} li @param {(m: string) => never} fail
 * @param {boolean[]|null} assignable by global index (null: all)
 */
function checkLam(unit, lam, li, fail, assignable) {
  const where = `lambda ${li}`;
  if (!lam || typeof lam !== 'object') fail(`${where} is malformed`);
  if (typeof lam.name !== 'string') fail(`${where} has no name`);
  if (!isIndex(lam.nfree, 1 << 16)) fail(`${where}: bad free-variable count`);
  if (!Array.isArray(lam.clauses) || lam.clauses.length === 0) fail(`${where} has no clauses`);
  const labels = new Set();
  const joins = new Set();
  for (const cl of lam.clauses) {
    if (!isIndex(cl.nreq, 256) || (cl.rest !== 0 && cl.rest !== 1) || !isIndex(cl.nlocals, 1 << 20)) fail(`${where}: malformed clause`);
    if (cl.nreq + cl.rest > cl.nlocals) fail(`${where}: more parameters than locals`);
    const ctx = { unit, lam, cl, labels, joins, fail, where, assignable, scope: /** @type {Set<number>} */ (new Set()) };
    checkBlock(ctx, cl.body, 0);
  }
}

/** @param {any} x @param {number} limit */
function isIndex(x, limit) {
  return Number.isInteger(x) && x >= 0 && x < limit;
}

/**
 * @param {any} ctx @param {any} block @param {number} depth
 */
function checkBlock(ctx, block, depth) {
  const { fail, where } = ctx;
  if (depth > 10000) fail(`${where}: blocks nested too deeply`);
  if (!Array.isArray(block) || block.length === 0) fail(`${where}: empty or malformed block`);
  const opened = [];
  for (let i = 0; i < block.length; i++) {
    const ins = block[i];
    if (!Array.isArray(ins)) fail(`${where}: malformed instruction`);
    const last = i === block.length - 1;
    switch (ins[0]) {
      case K_LET:
        expectLen(ctx, ins, 3);
        if (ins[1] !== -1) local(ctx, ins[1]);
        triv(ctx, ins[2]);
        break;
      case K_CALL: {
        expectLen(ctx, ins, 6);
        const label = ins[1];
        if (!isIndex(label, 1 << 20) || label === 0 || ctx.labels.has(label)) fail(`${where}: bad or duplicate label ${label}`);
        ctx.labels.add(label);
        local(ctx, ins[2]);
        if (!Array.isArray(ins[3])) fail(`${where}: malformed live set`);
        ins[3].forEach((/** @type {any} */ l) => local(ctx, l));
        atom(ctx, ins[4]);
        atoms(ctx, ins[5]);
        break;
      }
      case K_FIX:
        expectLen(ctx, ins, 2);
        if (!Array.isArray(ins[1])) fail(`${where}: malformed fix`);
        for (const b of ins[1]) {
          if (!Array.isArray(b) || b.length !== 3) fail(`${where}: malformed fix binding`);
          local(ctx, b[0]);
          lambdaRef(ctx, b[1], b[2]);
        }
        break;
      case K_JOIN: {
        expectLen(ctx, ins, 4);
        const j = ins[1];
        if (!isIndex(j, 1 << 20) || ctx.joins.has(j)) fail(`${where}: bad or duplicate join ${j}`);
        ctx.joins.add(j);
        if (ins[2] !== -1) local(ctx, ins[2]);
        ctx.scope.add(j);
        opened.push(j);
        checkBlock(ctx, ins[3], depth + 1);
        // the join is reachable only from its inner block
        ctx.scope.delete(j);
        break;
      }
      case K_RETURN: expectLen(ctx, ins, 2); triv(ctx, ins[1]); break;
      case K_TAIL: expectLen(ctx, ins, 3); atom(ctx, ins[1]); atoms(ctx, ins[2]); break;
      case K_IF: expectLen(ctx, ins, 4); atom(ctx, ins[1]); checkBlock(ctx, ins[2], depth + 1); checkBlock(ctx, ins[3], depth + 1); break;
      case K_JUMP:
        expectLen(ctx, ins, 3);
        if (!ctx.scope.has(ins[1])) fail(`${where}: jump to join ${ins[1]} outside its scope`);
        if (ins[2] !== null) atom(ctx, ins[2]);
        break;
      case K_LOOP:
        expectLen(ctx, ins, 2);
        atoms(ctx, ins[1]);
        if (ctx.lam.clauses.length !== 1 || ctx.cl.rest !== 0 || ins[1].length !== ctx.cl.nreq) fail(`${where}: loop with the wrong number of arguments`);
        break;
      default:
        fail(`${where}: unknown instruction ${JSON.stringify(ins[0])}`);
    }
    const terminal = ins[0] >= K_RETURN && ins[0] !== K_CALL && ins[0] !== K_LET && ins[0] !== K_FIX && ins[0] !== K_JOIN;
    if (terminal !== last) fail(`${where}: ${last ? 'block does not end with a terminal' : 'terminal in the middle of a block'}`);
  }
}

/** @param {any} ctx @param {any[]} ins @param {number} n */
function expectLen(ctx, ins, n) {
  if (ins.length !== n) ctx.fail(`${ctx.where}: instruction ${ins[0]} has ${ins.length - 1} operands, expected ${n - 1}`);
}

/** @param {any} ctx @param {any} l */
function local(ctx, l) {
  if (!isIndex(l, ctx.cl.nlocals)) ctx.fail(`${ctx.where}: local ${l} out of range`);
}

/** @param {any} ctx @param {any} as */
function atoms(ctx, as) {
  if (!Array.isArray(as) || as.length > 1000) ctx.fail(`${ctx.where}: malformed argument list`);
  as.forEach((/** @type {any} */ a) => atom(ctx, a));
}

/** @param {any} ctx @param {any} a */
function atom(ctx, a) {
  const { fail, where, unit, lam } = ctx;
  if (!Array.isArray(a)) fail(`${where}: malformed atom`);
  switch (a[0]) {
    case A_CONST: if (a.length !== 2 || !isIndex(a[1], unit.consts.length)) fail(`${where}: constant ${a[1]} out of range`); return;
    case A_LOCAL: if (a.length !== 2) fail(`${where}: malformed local`); local(ctx, a[1]); return;
    case A_FREE: if (a.length !== 2 || !isIndex(a[1], lam.nfree)) fail(`${where}: free value ${a[1]} out of range`); return;
    case A_GLOBAL: if (a.length !== 2 || !isIndex(a[1], unit.globals.length)) fail(`${where}: global ${a[1]} out of range`); return;
    case A_SELF: if (a.length !== 1) fail(`${where}: malformed self`); return;
    case A_FIX: if (a.length !== 2 || !Number.isInteger(a[1]) || Math.abs(a[1]) > MAX_INLINE_FIXNUM) fail(`${where}: bad inline integer`); return;
    default: fail(`${where}: unknown atom ${JSON.stringify(a[0])}`);
  }
}

/** @param {any} ctx @param {any} t */
function triv(ctx, t) {
  const { fail, where, unit } = ctx;
  if (!Array.isArray(t)) fail(`${where}: malformed expression`);
  switch (t[0]) {
    case T_PRIM:
      if (!isIndex(t[1], unit.prims.length)) fail(`${where}: primitive ${t[1]} out of range`);
      t.slice(2).forEach((/** @type {any} */ a) => atom(ctx, a));
      return;
    case T_CLOSURE: lambdaRef(ctx, t[1], t.slice(2)); return;
    case T_GSET:
    case T_GDEF:
      if (t.length !== 3 || !isIndex(t[1], unit.globals.length)) fail(`${where}: global ${t[1]} out of range`);
      if (ctx.assignable !== null && !ctx.assignable[t[1]]) {
        const [ns, name] = unit.globals[t[1]];
        fail(`${where}: ${t[0] === T_GDEF ? 'defines' : 'assigns'} ${ns === 'rt' ? 'runtime procedure ' : ns.startsWith('lib:') ? `library ${ns.slice(4)}'s global ` : `${ns}::`}${name}, which code received from another node may not write`);
      }
      atom(ctx, t[2]);
      return;
    default: atom(ctx, t);
  }
}

/** @param {any} ctx @param {any} index @param {any} fvs */
function lambdaRef(ctx, index, fvs) {
  const { fail, where, unit } = ctx;
  if (!isIndex(index, unit.lambdas.length) || index === 0) fail(`${where}: lambda ${index} out of range`);
  atoms(ctx, fvs);
  const target = unit.lambdas[index];
  if (target && fvs.length !== target.nfree) fail(`${where}: closure of lambda ${index} with ${fvs.length} free values, expected ${target.nfree}`);
}
