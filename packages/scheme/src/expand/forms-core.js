// @ts-check
/**
 * The primitive expression forms of R7RS §4.1 and the keywords that are only
 * meaningful in a definition context or inside another form.
 *
 *   (quote d)              ⇒ Const(d without renamed identifiers)
 *   (if t c [a])           ⇒ If(t, c, a or the unspecified value)
 *   (set! x e)             ⇒ LocalSet / GlobalSet; assigning an imported binding is an error
 *   (begin e ...)          ⇒ Seq (in an expression; definition contexts splice it)
 *   (lambda formals body)  ⇒ Lambda
 *   (case-lambda (formals body ...) ...) ⇒ CaseLambda
 *   (syntax-error "msg" form ...) raises a syntax error at the macro use that produced it
 *   define, define-values, define-record-type, define-syntax, import, define-library,
 *   syntax-rules: an error in an expression context
 */
import { Const, If, LocalSet, GlobalSet, Seq, CaseLambda } from '../ir/core.js';
import { isIdentifier, lookup, rootSym, strip } from './hygiene.js';
import { expandExpr, freeGlobal } from './expand-expr.js';
import { expandLambda } from './body.js';
import { includedForms } from './include.js';
import { condExpandForms } from './cond-expand.js';
import { operands, listOf, voidConst } from './util.js';
import { syntaxError, SchemeSyntaxError } from './errors.js';
import { showDatum } from './show.js';

/** @typedef {import('./hygiene.js').Scope} Scope */
/** @typedef {import('../ir/core.js').Loc} Loc */
/** @typedef {import('./unit.js').Unit} Unit */

/** @param {any} x @param {Scope} env @param {Unit} u @param {Loc|null} loc */
function* expandQuote(x, env, u, loc) {
  const [d] = operands(x, 'quote', loc, 1, 1, '(quote datum)');
  return Const(strip(d), loc);
}

/** @param {any} x @param {Scope} env @param {Unit} u @param {Loc|null} loc @returns {Generator<any, any, any>} */
function* expandIf(x, env, u, loc) {
  const ops = operands(x, 'if', loc, 2, 3, '(if test consequent [alternative])');
  const test = yield expandExpr(ops[0], env, u, loc);
  const then = yield expandExpr(ops[1], env, u, loc);
  const els = ops.length === 3 ? yield expandExpr(ops[2], env, u, loc) : voidConst(loc);
  return If(test, then, els, loc);
}

/** @param {any} x @param {Scope} env @param {Unit} u @param {Loc|null} loc @returns {Generator<any, any, any>} */
function* expandSet(x, env, u, loc) {
  const [id, e] = operands(x, 'set!', loc, 2, 2, '(set! variable expression)');
  if (!isIdentifier(id)) syntaxError('set!', 'expected a variable to assign', x, loc);
  const b = lookup(id, env);
  const value = yield expandExpr(e, env, u, loc);
  if (b === null) return GlobalSet(freeGlobal(id, env, loc), value, loc);
  switch (b.kind) {
    case 'local':
      return LocalSet(b.v, value, loc);
    case 'global':
      if (b.imported) syntaxError('set!', `cannot assign ${rootSym(id).name}: it is imported (from ${describeNs(b.g.ns)})`, x, loc);
      return GlobalSet(b.g, value, loc);
    default:
      return syntaxError('set!', `cannot assign ${rootSym(id).name}: it is a syntactic keyword`, x, loc);
  }
}

/** @param {string} ns */
const describeNs = (ns) => (ns === 'rt' ? 'the standard libraries' : ns.startsWith('lib:') ? `library ${ns.slice(4)}` : ns);

/** @param {any} x @param {Scope} env @param {Unit} u @param {Loc|null} loc @returns {Generator<any, any, any>} */
function* expandBegin(x, env, u, loc) {
  return yield sequenceOrVoid(listOf(x.cdr, 'begin', x, loc), env, u, loc);
}

/** @param {any[]} forms @param {Scope} env @param {Unit} u @param {Loc|null} loc @returns {Generator<any, any, any>} */
function* sequenceOrVoid(forms, env, u, loc) {
  if (forms.length === 0) return voidConst(loc);
  const es = [];
  for (const f of forms) es.push(yield expandExpr(f, env, u, loc));
  return Seq(es, loc);
}

/** @param {any} x @param {Scope} env @param {Unit} u @param {Loc|null} loc @returns {Generator<any, any, any>} */
function* expandLambdaForm(x, env, u, loc) {
  const ops = operands(x, 'lambda', loc, 2, Infinity, '(lambda formals body ...)');
  return yield expandLambda(ops[0], x.cdr.cdr, env, u, loc, null);
}

/** @param {any} x @param {Scope} env @param {Unit} u @param {Loc|null} loc @returns {Generator<any, any, any>} */
function* expandCaseLambda(x, env, u, loc) {
  const clauses = [];
  for (const c of listOf(x.cdr, 'case-lambda', x, loc)) {
    const parts = listOf(c, 'case-lambda', x, loc);
    if (parts.length < 2) syntaxError('case-lambda', 'a clause must be (formals body ...)', c, loc);
    clauses.push(yield expandLambda(parts[0], c.cdr, env, u, loc, null));
  }
  return CaseLambda(clauses, null, loc);
}

/** `include` / `include-ci` in an expression: a `begin` of the file's forms. @param {boolean} ci */
const expandInclude = (ci) =>
  /** @param {any} x @param {Scope} env @param {Unit} u @param {Loc|null} loc @returns {Generator<any, any, any>} */
  function* (x, env, u, loc) {
    return yield sequenceOrVoid(includedForms(x, loc, u, ci), env, u, loc);
  };

/** @param {any} x @param {Scope} env @param {Unit} u @param {Loc|null} loc @returns {Generator<any, any, any>} */
function* expandCondExpand(x, env, u, loc) {
  return yield sequenceOrVoid(condExpandForms(x, loc, u), env, u, loc);
}

/** @param {any} x @param {Scope} env @param {Unit} u @param {Loc|null} loc */
function* expandSyntaxError(x, env, u, loc) {
  const ops = listOf(x.cdr, 'syntax-error', x, loc);
  if (ops.length === 0 || typeof ops[0] !== 'string') syntaxError('syntax-error', 'expected (syntax-error "message" form ...)', x, loc);
  const args = ops.slice(1).map(strip);
  const shown = args.map(showDatum).join(' ');
  throw new SchemeSyntaxError(shown ? `${ops[0]} ${shown}` : ops[0], loc, 'syntax-error', args);
}

/** @param {string} name @param {string} where */
function notAnExpression(name, where) {
  /** @param {any} x @param {Scope} env @param {Unit} u @param {Loc|null} loc */
  return function* (x, env, u, loc) {
    syntaxError(name, `not allowed in an expression context (${where})`, x, loc);
  };
}

export const coreForms = {
  quote: expandQuote,
  if: expandIf,
  'set!': expandSet,
  begin: expandBegin,
  lambda: expandLambdaForm,
  'case-lambda': expandCaseLambda,
  include: expandInclude(false),
  'include-ci': expandInclude(true),
  'cond-expand': expandCondExpand,
  'syntax-error': expandSyntaxError,
  define: notAnExpression('define', 'only at top level or at the start of a body'),
  'define-values': notAnExpression('define-values', 'only at top level or at the start of a body'),
  'define-record-type': notAnExpression('define-record-type', 'only at top level or at the start of a body'),
  'define-syntax': notAnExpression('define-syntax', 'only at top level or at the start of a body'),
  import: notAnExpression('import', 'only at the beginning of a program'),
  'define-library': notAnExpression('define-library', 'only at top level'),
  'syntax-rules': notAnExpression('syntax-rules', 'only as the transformer of define-syntax, let-syntax or letrec-syntax'),
};

