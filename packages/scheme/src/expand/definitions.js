// @ts-check
/**
 * Definition contexts (bodies and unit top levels), in two phases as R7RS §5.3/§5.6
 * describe them:
 *
 *  1. `scanForms` expands the head of each form just enough to see what it is:
 *     `begin`, `include`, `include-ci` and `cond-expand` splice their forms; macro uses
 *     are transcribed; `define-syntax` binds its macro at once; `define`,
 *     `define-values` and `define-record-type` bind their names (through the context's
 *     `bind`) and are queued with their right-hand sides unexpanded; anything else is
 *     queued as an expression. `import` and `define-library` go to the context's hooks
 *     (top levels only).
 *  2. `expandItem` expands a queued item once every name of the context is bound, so
 *     a definition may refer to any other (letrec* semantics, mutual recursion, and at
 *     top level the whole program sees its own definitions).
 *
 * What phase 2 produces is a list of {target, node} bindings (target null for an
 * expression); body.js turns them into a Letrec and unit.js into GlobalDefs.
 */
import { Pair } from '../values.js';
import { Var, Lambda, Const } from '../ir/core.js';
import { isIdentifier, lookup, rootSym } from './hygiene.js';
import { transcribe } from './syntax-rules.js';
import { makeTransformer } from './transformers.js';
import { expandExpr } from './expand-expr.js';
import { expandLambda, parseFormals } from './body.js';
import { parseRecordType, recordBindings } from './records.js';
import { includedForms } from './include.js';
import { condExpandForms } from './cond-expand.js';
import { operands, listOf, rtCall, refTo, nameLambda, voidConst, expectIdentifier } from './util.js';
import { syntaxError, ExpanderBug } from './errors.js';
import { locOf } from './source.js';

/** @typedef {import('./hygiene.js').Scope} Scope */
/** @typedef {import('./hygiene.js').Identifier} Identifier */
/** @typedef {import('../ir/core.js').Loc} Loc */
/** @typedef {import('./unit.js').Unit} Unit */

/**
 * Where definitions go.
 * @typedef {object} DefContext
 * @property {Scope} scope                        the scope definitions bind in
 * @property {(id: Identifier, loc: Loc|null, form: any) => any} bind  binds a variable, returns its target (Var or GlobalName)
 * @property {(id: Identifier, binding: any, loc: Loc|null, form: any) => void} bindSyntax binds a keyword
 * @property {((form: any, loc: Loc|null) => void)|null} onImport
 * @property {((form: any, loc: Loc|null) => void)|null} onDefineLibrary
 */

/**
 * A queued item of a definition context.
 * @typedef {{t: 'expr', form: any, loc: Loc|null}
 *   | {t: 'define', target: any, rhs: any, lambda: {formals: any, body: any}|null, name: string, loc: Loc|null}
 *   | {t: 'values', formals: {req: Identifier[], rest: Identifier|null}, targets: any[], rhs: any, loc: Loc|null}
 *   | {t: 'record', spec: any, targets: any, ordinal: number, loc: Loc|null}} Item
 */

/**
 * Phase 1 over `forms`, all in scope `dc.scope`.
 * @param {any[]} forms @param {Loc|null} loc @param {Unit} u @param {DefContext} dc
 * @returns {Item[]}
 */
export function scanForms(forms, loc, u, dc) {
  const env = dc.scope;
  /** @type {Item[]} */
  const items = [];
  /** @type {{form: any, loc: Loc|null}[]} */
  const work = [];
  const pushAll = (/** @type {any[]} */ fs, /** @type {Loc|null} */ l) => {
    for (let i = fs.length - 1; i >= 0; i--) work.push({ form: fs[i], loc: l });
  };
  pushAll(forms, loc);
  while (work.length > 0) {
    const w = /** @type {{form: any, loc: Loc|null}} */ (work.pop());
    let x = w.form;
    let l = w.loc;
    for (;;) {
      if (!(x instanceof Pair) || !isIdentifier(x.car)) {
        items.push({ t: 'expr', form: x, loc: l });
        break;
      }
      l = locOf(x) ?? l;
      const b = lookup(x.car, env);
      if (b !== null && b.kind === 'macro') {
        x = transcribe(b.macro, x, env, l);
        continue;
      }
      if (b === null || b.kind !== 'special' || !scanners.has(b.name)) {
        items.push({ t: 'expr', form: x, loc: l });
        break;
      }
      /** @type {Function} */ (scanners.get(b.name))(x, l, u, dc, items, pushAll);
      break;
    }
  }
  return items;
}

/**
 * Whether `x` is certainly an expression in scope `env`: not a definition, not a form
 * that splices or might produce one (begin, include, cond-expand, a macro use). Lets a
 * body of one plain expression skip the definition scan.
 * @param {any} x @param {Scope} env
 */
export function isPlainExpression(x, env) {
  if (!(x instanceof Pair) || !isIdentifier(x.car)) return true;
  const b = lookup(x.car, env);
  return b === null || (b.kind !== 'macro' && !(b.kind === 'special' && scanners.has(b.name)));
}

/**
 * @typedef {(x: any, loc: Loc|null, u: Unit, dc: DefContext, items: Item[],
 *   pushAll: (forms: any[], loc: Loc|null) => void) => void} Scanner
 */

/** @type {Map<string, Scanner>} */
const scanners = new Map([
  ['begin', (x, loc, u, dc, items, pushAll) => pushAll(listOf(x.cdr, 'begin', x, loc), loc)],
  ['include', (x, loc, u, dc, items, pushAll) => pushAll(includedForms(x, loc, u, false), loc)],
  ['include-ci', (x, loc, u, dc, items, pushAll) => pushAll(includedForms(x, loc, u, true), loc)],
  ['cond-expand', (x, loc, u, dc, items, pushAll) => pushAll(condExpandForms(x, loc, u), loc)],
  ['define', scanDefine],
  ['define-values', scanDefineValues],
  ['define-record-type', scanRecordType],
  ['define-syntax', scanDefineSyntax],
  ['import', (x, loc, u, dc) => {
    if (!dc.onImport) syntaxError('import', 'only allowed at the beginning of a program or at the top level of a REPL', x, loc);
    dc.onImport(x, loc);
  }],
  ['define-library', (x, loc, u, dc) => {
    if (!dc.onDefineLibrary) syntaxError('define-library', 'only allowed at top level', x, loc);
    dc.onDefineLibrary(x, loc);
  }],
]);

/** @type {Scanner} */
function scanDefine(x, loc, u, dc, items) {
  const ops = listOf(x.cdr, 'define', x, loc, 'expected (define name value) or (define (name . formals) body ...)');
  if (ops.length === 0) syntaxError('define', 'expected (define name value) or (define (name . formals) body ...)', x, loc);
  const head = ops[0];
  if (head instanceof Pair) {
    const id = expectIdentifier(head.car, 'define', x, loc);
    if (ops.length < 2) syntaxError('define', 'a procedure definition needs a body', x, loc);
    parseFormals(head.cdr, 'define', x, loc);
    const target = dc.bind(id, loc, x);
    items.push({ t: 'define', target, rhs: null, lambda: { formals: head.cdr, body: /** @type {Pair} */ (x.cdr).cdr }, name: rootSym(id).name, loc });
    return;
  }
  const id = expectIdentifier(head, 'define', x, loc);
  if (ops.length > 2) syntaxError('define', 'expected (define name value)', x, loc);
  const target = dc.bind(id, loc, x);
  items.push({ t: 'define', target, rhs: ops.length === 2 ? ops[1] : undefined, lambda: null, name: rootSym(id).name, loc });
}

/** @type {Scanner} */
function scanDefineValues(x, loc, u, dc, items) {
  const ops = operands(x, 'define-values', loc, 2, 2, '(define-values formals expression)');
  const formals = parseFormals(ops[0], 'define-values', x, loc);
  const targets = [...formals.req, ...(formals.rest ? [formals.rest] : [])].map((id) => dc.bind(id, loc, x));
  items.push({ t: 'values', formals, targets, rhs: ops[1], loc });
}

/** @type {Scanner} */
function scanRecordType(x, loc, u, dc, items) {
  const spec = parseRecordType(x, loc);
  const bind = (/** @type {Identifier|null} */ id) => (id === null ? null : dc.bind(id, loc, x));
  const targets = {
    type: bind(spec.type),
    ctor: spec.ctor ? bind(spec.ctor.id) : null,
    pred: bind(spec.pred),
    fields: spec.fields.map((/** @type {any} */ f) => ({ acc: bind(f.acc), mod: bind(f.mod) })),
  };
  items.push({ t: 'record', spec, targets, ordinal: u.records++, loc });
}

/** @type {Scanner} */
function scanDefineSyntax(x, loc, u, dc) {
  const ops = operands(x, 'define-syntax', loc, 2, 2, '(define-syntax keyword transformer)');
  const id = expectIdentifier(ops[0], 'define-syntax', x, loc);
  const name = rootSym(id).name;
  const macro = makeTransformer(ops[1], dc.scope, u, loc, name);
  dc.bindSyntax(id, { kind: 'macro', name, macro }, loc, x);
}

/**
 * Phase 2: expand one queued item.
 * @param {Item} item @param {Scope} env @param {Unit} u
 * @returns {Generator<any, {target: any, node: any, set?: boolean}[], any>}
 */
export function* expandItem(item, env, u) {
  switch (item.t) {
    case 'expr':
      return [{ target: null, node: yield expandExpr(item.form, env, u, item.loc) }];
    case 'define': {
      let node;
      if (item.lambda) node = yield expandLambda(item.lambda.formals, item.lambda.body, env, u, item.loc, item.name);
      else if (item.rhs === undefined) node = voidConst(item.loc);
      else node = nameLambda(yield expandExpr(item.rhs, env, u, item.loc), item.name);
      return [{ target: item.target, node }];
    }
    case 'values':
      return yield* valuesBindings(item, env, u);
    case 'record':
      return recordBindings(item.spec, item.targets, item.ordinal, env, u, item.loc);
    default:
      throw new ExpanderBug(`unknown definition item ${/** @type {any} */ (item).t}`);
  }
}

const ACCESSORS = ['car', 'cadr', 'caddr', 'cadddr'];

/**
 * `(define-values (a b . c) e)`: the consumer `(lambda (a b . c) (list a b c))` checks
 * the number of values; each variable then takes its element of that list. In a body
 * the list is a hidden variable; at top level (GlobalDefs only) it is parked in the
 * first variable, which is set to its own element last.
 * @param {Extract<Item, {t: 'values'}>} item @param {Scope} env @param {Unit} u
 * @returns {Generator<any, any, any>}
 */
function* valuesBindings(item, env, u) {
  const loc = item.loc;
  const n = item.targets.length;
  const params = item.formals.req.map((id) => new Var(rootSym(id).name));
  const rest = item.formals.rest ? new Var(rootSym(item.formals.rest).name) : null;
  const all = [...params, ...(rest ? [rest] : [])];
  const producer = Lambda([], null, yield expandExpr(item.rhs, env, u, loc), null, loc);
  const refs = all.map((v) => refTo(v, loc));
  const consumerBody = n === 1 ? refs[0] : n === 0 ? voidConst(loc) : rtCall('list', refs, loc);
  const cwv = rtCall('call-with-values', [producer, Lambda(params, rest, consumerBody, null, loc)], loc);
  if (n === 0) return [{ target: null, node: cwv }];
  if (n === 1) return [{ target: item.targets[0], node: cwv }];
  const global = typeof item.targets[0].ns === 'string';
  const holder = global ? item.targets[0] : new Var('values');
  const nth = (/** @type {number} */ i) =>
    i < ACCESSORS.length ? rtCall(ACCESSORS[i], [refTo(holder, loc)], loc) : rtCall('list-ref', [refTo(holder, loc), Const(i, loc)], loc);
  /** @type {{target: any, node: any, set?: boolean}[]} */
  const out = [{ target: holder, node: cwv }];
  for (let i = global ? 1 : 0; i < n; i++) out.push({ target: item.targets[i], node: nth(i) });
  if (global) out.push({ target: holder, node: nth(0), set: true });
  return out;
}

