// @ts-check
/**
 * pass: convert-closures : L2 CPS -> L3 Wire
 *
 *   (lambda (x) ... y ...)   with y free      ⇒ [T_CLOSURE, L7, y]   and L7 reads y as [A_FREE, 0]
 *   (fix ((f (lambda ... (f ...)))) ...)      ⇒ [K_FIX, [[l3, L8, []]]], and inside L8
 *                                               f is [A_SELF]; a tail call to it with
 *                                               exactly nreq arguments is [K_LOOP, ...]
 *   (call r <- g x) rest                      ⇒ [K_CALL, label, r, live, g, [x]]
 *   nested Let/Call chains                    ⇒ flat blocks
 *
 * Lambdas are lifted into the unit's lambda table (index 0 is the unit's top level);
 * variables become per-clause local numbers, free variables per-closure indices, in
 * order of first appearance, so the output — and the unit's hash — depends only on the
 * program. Constants, globals and primitives go to per-unit tables. Finally the live
 * locals of every return point are computed by a backward pass over each block
 * (compute-liveness below), which is what a continuation frame saves.
 *
 * Why separate: it fixes the data layout of closures and frames — the one thing that
 * must agree between the node that captured a continuation and the node that resumes
 * it — in one place, on the IR that is hashed and shipped.
 */
import {
  WIRE_VERSION, A_CONST, A_LOCAL, A_FREE, A_GLOBAL, A_SELF, A_FIX, MAX_INLINE_FIXNUM,
  T_PRIM, T_CLOSURE, T_GSET, T_GDEF,
  K_RETURN, K_TAIL, K_CALL, K_LET, K_FIX, K_IF, K_JOIN, K_JUMP, K_LOOP, forEachSite,
} from '../ir/wire.js';
import { CompilerBug } from './walk-core.js';

/**
 * @param {any} top the unit body: an L2 Term
 * @param {{name: string, requires?: string[], file?: string}} info
 * @returns {any} a wire unit (without hash)
 */
export function convertClosures(top, info) {
  const unit = new UnitBuilder();
  const lam0 = { t: 'Lambda', params: [], rest: null, body: top, name: info.name || 'toplevel' };
  unit.lambdas.push(null);
  unit.lambdas[0] = unit.convertLambda(lam0, null, []);
  for (const lam of unit.lambdas) for (const c of lam.clauses) computeLiveness(c.body, new Map());
  return {
    debug: unit.debugInfo(info.file ?? info.name),
    v: WIRE_VERSION,
    name: info.name,
    consts: unit.consts,
    globals: unit.globals,
    prims: unit.prims,
    lambdas: unit.lambdas,
    requires: info.requires ?? [],
  };
}

class UnitBuilder {
  constructor() {
    /** @type {any[]} */ this.consts = [];
    /** @type {Map<any, number>} */ this.constIndex = new Map();
    /** @type {[string, string][]} */ this.globals = [];
    /** @type {Map<string, number>} */ this.globalIndex = new Map();
    /** @type {string[]} */ this.prims = [];
    /** @type {Map<string, number>} */ this.primIndex = new Map();
    /** @type {any[]} */ this.lambdas = [];
    /** @type {WeakMap<any, any[]>} free variables of each L2 lambda, memoised */
    this.freeMemo = new WeakMap();
    /** @type {WeakMap<any[], any>} instruction → source location (debug information) */
    this.locs = new WeakMap();
  }

  /**
   * Debug information: the source position of each site (see wire.forEachSite). Not
   * part of the unit's identity; a hostile peer can only make its own messages wrong.
   * @param {string} file
   */
  debugInfo(file) {
    const sites = this.lambdas.map((lam) => {
      /** @type {([number, number]|null)[]} */
      const out = [];
      forEachSite(lam, (ins, site) => {
        const loc = this.locs.get(ins);
        out[site] = loc ? [loc.line, loc.col] : null;
      });
      return out;
    });
    return { file, sites };
  }

  /** @param {any[]} ins @param {any} loc */
  at(ins, loc) {
    if (loc) this.locs.set(ins, loc);
    return ins;
  }

  /** @param {any} v */
  constant(v) {
    if (typeof v === 'number' && Number.isInteger(v) && Math.abs(v) <= MAX_INLINE_FIXNUM && !Object.is(v, -0)) return [A_FIX, v];
    let i = this.constIndex.get(v);
    if (i === undefined) {
      i = this.consts.length;
      this.consts.push(v);
      this.constIndex.set(v, i);
    }
    return [A_CONST, i];
  }

  /** @param {{ns: string, name: string}} g */
  global(g) {
    const key = `${g.ns}\u0000${g.name}`;
    let i = this.globalIndex.get(key);
    if (i === undefined) {
      i = this.globals.length;
      this.globals.push([g.ns, g.name]);
      this.globalIndex.set(key, i);
    }
    return i;
  }

  /** @param {string} name */
  prim(name) {
    let i = this.primIndex.get(name);
    if (i === undefined) {
      i = this.prims.length;
      this.prims.push(name);
      this.primIndex.set(name, i);
    }
    return i;
  }

  /**
   * Lift one L2 Lambda or CaseLambda into a Lam.
   * @param {any} node
   * @param {any} self the Fix variable bound to this closure, or null
   * @param {any[]} free the closure's free variables, in order
   */
  convertLambda(node, self, free) {
    const freeIndex = new Map(free.map((v, i) => [v, i]));
    const cls = node.t === 'CaseLambda' ? node.clauses : [node];
    const scope = { self, freeIndex, labels: 0, joins: 0, single: cls.length === 1 };
    const clauses = cls.map((/** @type {any} */ cl) => {
      const ctx = new ClauseContext(this, scope, cl);
      return { nreq: cl.params.length, rest: cl.rest ? 1 : 0, nlocals: 0, body: ctx.block(cl.body), ctx };
    });
    for (const c of clauses) {
      c.nlocals = c.ctx.locals.size;
      delete c.ctx;
    }
    return { name: node.name || 'anonymous', nfree: free.length, clauses };
  }

  /**
   * The free variables of an L2 lambda (or case-lambda), in order of first appearance.
   * @param {any} node @returns {any[]}
   */
  freeVars(node) {
    let fv = this.freeMemo.get(node);
    if (fv === undefined) {
      fv = collectFree(node, this);
      this.freeMemo.set(node, fv);
    }
    return fv;
  }

  /**
   * Reserve a lambda index, convert the lambda and return the index.
   * @param {any} node @param {any} self @param {any[]} free
   */
  lift(node, self, free) {
    const index = this.lambdas.length;
    this.lambdas.push(null);
    this.lambdas[index] = this.convertLambda(node, self, free);
    return index;
  }
}

class ClauseContext {
  /**
   * @param {UnitBuilder} unit
   * @param {{self: any, freeIndex: Map<any, number>, labels: number, joins: number, single: boolean}} scope
   *   shared by the clauses of one Lam; K_LOOP re-enters the clause directly, so it is
   *   only used when there is a single clause
   * @param {any} clause L2 Lambda
   */
  constructor(unit, scope, clause) {
    this.unit = unit;
    this.scope = scope;
    this.nreq = clause.params.length;
    this.hasRest = clause.rest !== null;
    /** @type {Map<any, number>} */ this.locals = new Map();
    /** @type {Map<any, number>} */ this.joinIds = new Map();
    for (const p of clause.params) this.bind(p);
    if (clause.rest) this.bind(clause.rest);
  }

  /** @param {any} v */
  bind(v) {
    if (this.locals.has(v)) throw new CompilerBug(`variable ${v} bound twice in one lambda`);
    const i = this.locals.size;
    this.locals.set(v, i);
    return i;
  }

  /** @param {any} v */
  atomOfVar(v) {
    if (v === this.scope.self) return [A_SELF];
    const l = this.locals.get(v);
    if (l !== undefined) return [A_LOCAL, l];
    const f = this.scope.freeIndex.get(v);
    if (f !== undefined) return [A_FREE, f];
    throw new CompilerBug(`variable ${v} is neither local nor free`);
  }

  /** @param {any} a L2 atom */
  atom(a) {
    switch (a.t) {
      case 'Const': return this.unit.constant(a.value);
      case 'LocalRef': return this.atomOfVar(a.v);
      case 'GlobalRef': return [A_GLOBAL, this.unit.global(a.g)];
      default: throw new CompilerBug(`not an atom: ${a.t}`);
    }
  }

  /** @param {any} t L2 triv */
  triv(t) {
    switch (t.t) {
      case 'PrimCall': return [T_PRIM, this.unit.prim(t.prim), ...t.args.map((/** @type {any} */ a) => this.atom(a))];
      case 'Lambda':
      case 'CaseLambda': {
        const free = this.unit.freeVars(t);
        return [T_CLOSURE, this.unit.lift(t, null, free), ...free.map((v) => this.atomOfVar(v))];
      }
      case 'GlobalSet': return [T_GSET, this.unit.global(t.g), this.atom(t.e)];
      case 'GlobalDef': return [T_GDEF, this.unit.global(t.g), this.atom(t.e)];
      default: return this.atom(t);
    }
  }

  /**
   * Convert a chain of L2 terms into one flat block.
   * @param {any} term @returns {any[]}
   */
  block(term) {
    const out = [];
    for (;;) {
      switch (term.t) {
        case 'Let':
          out.push(this.unit.at([K_LET, term.v ? this.bind(term.v) : -1, this.triv(term.e)], term.e.loc));
          term = term.body;
          continue;
        case 'Call': {
          const f = this.atom(term.fn);
          const args = term.args.map((/** @type {any} */ a) => this.atom(a));
          out.push(this.unit.at([K_CALL, ++this.scope.labels, this.bind(term.v), [], f, args], term.loc));
          term = term.body;
          continue;
        }
        case 'Fix': {
          const locals = term.vars.map((/** @type {any} */ v) => this.bind(v));
          const binds = term.lambdas.map((/** @type {any} */ lam, /** @type {number} */ i) => {
            const self = term.vars[i];
            const free = this.unit.freeVars(lam).filter((v) => v !== self);
            return [locals[i], this.unit.lift(lam, self, free), free.map((v) => this.atomOfVar(v))];
          });
          out.push([K_FIX, binds]);
          term = term.body;
          continue;
        }
        case 'LetJoin': {
          const j = ++this.scope.joins;
          this.joinIds.set(term.j, j);
          const param = term.v ? this.bind(term.v) : -1;
          out.push([K_JOIN, j, param, this.block(term.body)]);
          term = term.jbody;
          continue;
        }
        case 'Return':
          out.push(this.unit.at([K_RETURN, this.triv(term.e)], term.e.loc));
          return out;
        case 'TailCall': {
          const args = term.args.map((/** @type {any} */ a) => this.atom(a));
          const isSelf = term.fn.t === 'LocalRef' && term.fn.v === this.scope.self;
          if (isSelf && !this.hasRest && args.length === this.nreq && this.scope.self !== null && this.scope.single) {
            out.push(this.unit.at([K_LOOP, args], term.loc));
          } else {
            out.push(this.unit.at([K_TAIL, this.atom(term.fn), args], term.loc));
          }
          return out;
        }
        case 'If':
          out.push([K_IF, this.atom(term.test), this.block(term.then), this.block(term.else)]);
          return out;
        case 'Jump': {
          const j = this.joinIds.get(term.j);
          if (j === undefined) throw new CompilerBug(`jump to unknown join ${term.j}`);
          out.push([K_JUMP, j, term.e ? this.atom(term.e) : null]);
          return out;
        }
        case 'Hole':
          throw new CompilerBug('unfilled placeholder in a CPS sequence');
        default:
          throw new CompilerBug(`convert-closures: unknown term ${term && term.t}`);
      }
    }
  }
}

/**
 * Free variables of an L2 lambda, in order of first appearance: every variable read
 * in it that is not bound in it. Fix variables count as bound where they are bound.
 * @param {any} node Lambda or CaseLambda
 * @param {UnitBuilder} unit for memoised nested results
 * @returns {any[]}
 */
function collectFree(node, unit) {
  const bound = new Set();
  const seen = new Set();
  /** @type {any[]} */
  const out = [];
  /** @param {any} v */
  const use = (v) => {
    if (!bound.has(v) && !seen.has(v)) {
      seen.add(v);
      out.push(v);
    }
  };
  /** @param {any} a */
  const atom = (a) => {
    if (a && a.t === 'LocalRef') use(a.v);
  };
  /** @param {any} t */
  const triv = (t) => {
    switch (t.t) {
      case 'PrimCall': t.args.forEach(atom); return;
      case 'Lambda':
      case 'CaseLambda': unit.freeVars(t).forEach(use); return;
      case 'GlobalSet':
      case 'GlobalDef': atom(t.e); return;
      default: atom(t);
    }
  };
  /** @param {any} term */
  const walk = (term) => {
    for (;;) {
      switch (term.t) {
        case 'Let': triv(term.e); if (term.v) bound.add(term.v); term = term.body; continue;
        case 'Call': atom(term.fn); term.args.forEach(atom); bound.add(term.v); term = term.body; continue;
        case 'Fix':
          term.vars.forEach((/** @type {any} */ v) => bound.add(v));
          term.lambdas.forEach(triv);
          term = term.body;
          continue;
        case 'LetJoin': if (term.v) bound.add(term.v); walk(term.jbody); term = term.body; continue;
        case 'Return': triv(term.e); return;
        case 'TailCall': atom(term.fn); term.args.forEach(atom); return;
        case 'If': atom(term.test); walk(term.then); walk(term.else); return;
        case 'Jump': atom(term.e); return;
        default: throw new CompilerBug(`collectFree: unknown term ${term && term.t}`);
      }
    }
  };
  for (const cl of node.t === 'CaseLambda' ? node.clauses : [node]) {
    cl.params.forEach((/** @type {any} */ p) => bound.add(p));
    if (cl.rest) bound.add(cl.rest);
    walk(cl.body);
  }
  return out;
}

/**
 * pass (part of convert-closures): compute-liveness — fill in the live set of each
 * K_CALL: the locals read after the call returns, including through join points.
 * A backward pass: the instructions after a K_JOIN are the join's code, so their live
 * set is known before the inner block (which jumps there) is analysed.
 * Returns the locals live on entry to the block.
 * @param {any[]} block @param {Map<number, Set<number>>} joinLive locals live at each join point
 * @returns {Set<number>}
 */
function computeLiveness(block, joinLive) {
  /** @type {Set<number>} */
  let live = new Set();
  /** @param {any} a */
  const use = (a) => {
    if (a && a[0] === A_LOCAL) live.add(a[1]);
  };
  /** @param {any} t */
  const useTriv = (t) => {
    if (t[0] === T_PRIM || t[0] === T_CLOSURE) t.slice(2).forEach(use);
    else if (t[0] === T_GSET || t[0] === T_GDEF) use(t[2]);
    else use(t);
  };
  for (let i = block.length - 1; i >= 0; i--) {
    const ins = block[i];
    switch (ins[0]) {
      case K_RETURN: useTriv(ins[1]); break;
      case K_TAIL: use(ins[1]); ins[2].forEach(use); break;
      case K_LOOP: ins[1].forEach(use); break;
      case K_IF: {
        const a = computeLiveness(ins[2], joinLive);
        const b = computeLiveness(ins[3], joinLive);
        live = new Set([...a, ...b]);
        use(ins[1]);
        break;
      }
      case K_JUMP: {
        const target = joinLive.get(ins[1]);
        if (target === undefined) throw new CompilerBug(`liveness: jump to unknown join j${ins[1]}`);
        live = new Set(target);
        use(ins[2]);
        break;
      }
      case K_JOIN: {
        const atJoin = new Set(live);
        atJoin.delete(ins[2]);
        joinLive.set(ins[1], atJoin);
        live = computeLiveness(ins[3], joinLive);
        break;
      }
      case K_LET: live.delete(ins[1]); useTriv(ins[2]); break;
      case K_CALL:
        live.delete(ins[2]);
        ins[3] = [...live].sort((x, y) => x - y);
        use(ins[4]);
        ins[5].forEach(use);
        break;
      case K_FIX:
        for (const [, , fvs] of ins[1]) fvs.forEach(use);
        for (const [l] of ins[1]) live.delete(l);
        break;
      default: throw new CompilerBug(`liveness: unknown instruction ${ins[0]}`);
    }
  }
  return live;
}
