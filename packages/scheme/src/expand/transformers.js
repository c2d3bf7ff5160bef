// @ts-check
/**
 * Keyword definitions: what `define-syntax`, `let-syntax` and `letrec-syntax` accept
 * on their right-hand side, and the two local-macro forms themselves.
 *
 *   transformer ::= (syntax-rules ...)                   compiled in the defining scope
 *                 | a macro use that expands into one    (macro-defining macros)
 *                 | a keyword bound to a macro           (an alias of that macro)
 *
 *   (let-syntax ((k t) ...) body ...)     t compiled in the OUTER scope, body in a new one
 *   (letrec-syntax ((k t) ...) body ...)  t compiled in the NEW scope (k may recur)
 *
 * Both are expressions whose body is a body (internal definitions allowed), as in R7RS;
 * they do not splice their definitions into the enclosing context.
 */
import { Pair } from '../values.js';
import { Scope, isIdentifier, lookup, rootSym } from './hygiene.js';
import { compileSyntaxRules, transcribe } from './syntax-rules.js';
import { expandBody } from './body.js';
import { operands, listOf, expectIdentifier } from './util.js';
import { syntaxError } from './errors.js';
import { locOf } from './source.js';

/** @typedef {import('./hygiene.js').Scope} ScopeT */
/** @typedef {import('../ir/core.js').Loc} Loc */
/** @typedef {import('./unit.js').Unit} Unit */

/**
 * The macro a transformer spec denotes.
 * @param {any} spec @param {ScopeT} env @param {Unit} u @param {Loc|null} loc @param {string} name
 * @returns {import('./syntax-rules.js').Macro}
 */
export function makeTransformer(spec, env, u, loc, name) {
  for (;;) {
    if (isIdentifier(spec)) {
      const b = lookup(spec, env);
      if (b !== null && b.kind === 'macro') return b.macro;
      break;
    }
    if (!(spec instanceof Pair) || !isIdentifier(spec.car)) break;
    const l = locOf(spec) ?? loc;
    const b = lookup(spec.car, env);
    if (b !== null && b.kind === 'macro') {
      spec = transcribe(b.macro, spec, env, l);
      loc = l;
      continue;
    }
    if (b !== null && b.kind === 'special' && b.name === 'syntax-rules') return compileSyntaxRules(spec, env, name, l);
    if (b === null && rootSym(spec.car).name === 'syntax-rules') return compileSyntaxRules(spec, env, name, l);
    break;
  }
  return syntaxError(name, 'expected a syntax-rules transformer', spec, loc);
}

/**
 * `let-syntax` and `letrec-syntax`.
 * @param {boolean} rec
 */
function localSyntax(rec) {
  const who = rec ? 'letrec-syntax' : 'let-syntax';
  /** @param {any} x @param {ScopeT} env @param {Unit} u @param {Loc|null} loc @returns {Generator<any, any, any>} */
  return function* (x, env, u, loc) {
    const ops = operands(x, who, loc, 2, Infinity, `(${who} ((keyword transformer) ...) body ...)`);
    const scope = new Scope(env);
    for (const b of listOf(ops[0], who, x, loc)) {
      const parts = listOf(b, who, x, loc);
      if (parts.length !== 2) syntaxError(who, 'a binding must be (keyword transformer)', x, loc);
      const id = expectIdentifier(parts[0], who, x, loc);
      if (scope.map.has(id)) syntaxError(who, `${rootSym(id).name} is bound twice`, x, loc);
      const name = rootSym(id).name;
      scope.bind(id, { kind: 'macro', name, macro: makeTransformer(parts[1], rec ? scope : env, u, loc, name) });
    }
    return yield expandBody(/** @type {Pair} */ (x.cdr).cdr, scope, u, loc, who);
  };
}

export const transformerForms = {
  'let-syntax': localSyntax(false),
  'letrec-syntax': localSyntax(true),
};
