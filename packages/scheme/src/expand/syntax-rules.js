// @ts-check
/**
 * `syntax-rules` (R7RS §4.3.2): compiling a transformer and its patterns, matching a
 * macro use, and transcribing it (templates are in templates.js).
 *
 * A transformer is compiled once, when `define-syntax` (or let-syntax, ...) sees it:
 * patterns and templates become small trees (pattern variables with their ellipsis
 * depth, literals, ellipsis positions, the variables that drive each ellipsis), so a
 * macro use only walks those trees. Supported: literals (matched with
 * free-identifier=?), `_`, ellipses nested to any depth, a custom ellipsis
 * `(syntax-rules ::: (lit ...) ...)`, `(... ...)` escapes, patterns with more
 * patterns after the ellipsis `(a ... b c)`, dotted and vector patterns, and templates
 * where an element is followed by several ellipses (`x ... ...`). A variable may appear
 * in a template under MORE ellipses than in its pattern (it is repeated), never fewer.
 *
 * Transcription renames every identifier the template inserts to a fresh Alias (one
 * per identifier per expansion) carrying the macro's definition scope; see hygiene.js
 * for why that makes the expansion hygienic. Recursion here follows the nesting of the
 * pattern and template only, never the length or depth of the user's data: a pattern
 * variable's match is inserted as is, and list spines are walked with loops.
 */
import { Pair, Flonum, Ratnum } from '../values.js';
import { isIdentifier, isAux, freeIdentifierEquals, rootSym } from './hygiene.js';
import { syntaxError, ExpanderBug } from './errors.js';
import { spine } from './util.js';
import { compileTemplate, instantiate } from './templates.js';

/** @typedef {import('./hygiene.js').Identifier} Identifier */
/** @typedef {import('./hygiene.js').Scope} Scope */
/** @typedef {import('../ir/core.js').Loc} Loc */

/**
 * A compiled transformer.
 * @typedef {object} Macro
 * @property {string} name
 * @property {Scope} env      where the macro was defined (free template identifiers resolve here)
 * @property {{pat: any, tmpl: any}[]} rules
 */

/**
 * @typedef {object} Ctx compile-time context of one syntax-rules form
 * @property {Scope} env
 * @property {Identifier[]} lits
 * @property {Identifier|null} custom   custom ellipsis identifier
 * @property {boolean} noEllipsis      the ellipsis is one of the literals
 * @property {string} name
 * @property {Loc|null} loc
 * @property {(x: any) => boolean} isEllipsis
 */

const WHO = 'syntax-rules';

/**
 * Compile `(syntax-rules [ellipsis] (literal ...) (pattern template) ...)`.
 * @param {any} spec the whole syntax-rules form @param {Scope} env @param {string} name
 * @param {Loc|null} loc @returns {Macro}
 */
export function compileSyntaxRules(spec, env, name, loc) {
  let rest = spec.cdr;
  /** @type {Identifier|null} */
  let custom = null;
  if (rest instanceof Pair && isIdentifier(rest.car)) {
    custom = rest.car;
    rest = rest.cdr;
  }
  if (!(rest instanceof Pair)) syntaxError(WHO, 'expected a list of literals', spec, loc);
  const lits = properList(rest.car, spec, loc, 'literals must be a list of identifiers');
  for (const l of lits) if (!isIdentifier(l)) syntaxError(WHO, 'a literal must be an identifier', spec, loc);
  /** @type {Ctx} */
  const ctx = { env, lits, custom, noEllipsis: false, name, loc, isEllipsis: (/** @type {any} */ x) => isEllipsis(x, ctx) };
  ctx.noEllipsis = lits.some((l) => isEllipsisIgnoringLits(l, ctx));
  const rules = properList(rest.cdr, spec, loc, 'expected (pattern template) rules').map((rule) => {
    if (!(rule instanceof Pair) || !(rule.cdr instanceof Pair) || rule.cdr.cdr !== null) {
      syntaxError(WHO, 'a rule must be (pattern template)', rule, loc);
    }
    const p = rule.car;
    if (!(p instanceof Pair)) syntaxError(WHO, 'a pattern must be a list starting with the keyword', rule, loc);
    /** @type {Map<Identifier, number>} */
    const vars = new Map();
    const pat = compilePattern(p.cdr, 0, ctx, vars, []);
    const tmpl = compileTemplate(rule.cdr.car, ctx, vars, 0, true, new Set());
    return { pat, tmpl };
  });
  return { name, env, rules };
}

/**
 * Expand one use of `macro`: the output of the first rule whose pattern matches.
 * @param {Macro} macro @param {any} form @param {Scope} useEnv @param {Loc|null} loc
 * @returns {any}
 */
export function transcribe(macro, form, useEnv, loc) {
  for (const rule of macro.rules) {
    /** @type {Map<Identifier, any>} */
    const b = new Map();
    if (match(rule.pat, form.cdr, useEnv, macro.env, b)) {
      return instantiate(rule.tmpl, b, new Map(), macro, loc);
    }
  }
  return syntaxError(macro.name, 'no syntax-rules pattern matches this use', form, loc);
}

// ---------------------------------------------------------------------------------------
// Compiling patterns.

/** @param {any} x @param {Ctx} ctx */
function isEllipsisIgnoringLits(x, ctx) {
  if (!isIdentifier(x)) return false;
  if (ctx.custom) return x === ctx.custom || freeIdentifierEquals(x, ctx.env, ctx.custom, ctx.env);
  return isAux(x, ctx.env, '...');
}

/** @param {any} x @param {Ctx} ctx */
const isEllipsis = (x, ctx) => !ctx.noEllipsis && isEllipsisIgnoringLits(x, ctx);

/**
 * @param {any} p @param {number} depth @param {Ctx} ctx
 * @param {Map<Identifier, number>} vars every pattern variable of the rule → depth
 * @param {Identifier[]} seen variables of the innermost enclosing ellipsis subpattern
 * @returns {any}
 */
function compilePattern(p, depth, ctx, vars, seen) {
  if (isIdentifier(p)) {
    if (ctx.lits.includes(p)) return { t: 'lit', id: p };
    if (isAux(p, ctx.env, '_')) return { t: 'any' };
    if (isEllipsis(p, ctx)) syntaxError(ctx.name, 'misplaced ellipsis in pattern', p, ctx.loc);
    if (vars.has(p)) syntaxError(ctx.name, `pattern variable ${rootSym(p).name} appears twice`, p, ctx.loc);
    vars.set(p, depth);
    seen.push(p);
    return { t: 'var', id: p };
  }
  if (p instanceof Pair || Array.isArray(p) || p === null) {
    const elems = [];
    let t = p;
    if (Array.isArray(p)) {
      elems.push(...p);
      t = null;
    } else {
      const s = spine(p) ?? syntaxError(ctx.name, 'circular pattern', p, ctx.loc);
      elems.push(...s.items);
      t = s.tail;
    }
    let ei = -1;
    for (let i = 0; i < elems.length; i++) {
      if (!isEllipsis(elems[i], ctx)) continue;
      if (ei >= 0) syntaxError(ctx.name, 'two ellipses in one list pattern', p, ctx.loc);
      if (i === 0) syntaxError(ctx.name, 'an ellipsis must follow a pattern', p, ctx.loc);
      ei = i;
    }
    const node = {
      t: Array.isArray(p) ? 'vec' : 'list',
      head: /** @type {any[]} */ ([]),
      ell: /** @type {any} */ (null),
      ellVars: /** @type {Identifier[]} */ ([]),
      after: /** @type {any[]} */ ([]),
      rest: /** @type {any} */ (null),
    };
    const nHead = ei >= 0 ? ei - 1 : elems.length;
    for (let i = 0; i < nHead; i++) node.head.push(compilePattern(elems[i], depth, ctx, vars, seen));
    if (ei >= 0) {
      node.ell = compilePattern(elems[ei - 1], depth + 1, ctx, vars, node.ellVars);
      seen.push(...node.ellVars);
      for (let i = ei + 1; i < elems.length; i++) node.after.push(compilePattern(elems[i], depth, ctx, vars, seen));
    }
    if (t !== null) {
      if (isEllipsis(t, ctx)) syntaxError(ctx.name, 'misplaced ellipsis in pattern', p, ctx.loc);
      node.rest = compilePattern(t, depth, ctx, vars, seen);
    }
    return node;
  }
  return { t: 'const', v: p };
}

// ---------------------------------------------------------------------------------------
// Matching.

/**
 * @param {any} P compiled pattern @param {any} x input form @param {Scope} useEnv
 * @param {Scope} macroEnv @param {Map<Identifier, any>} b bindings, filled in
 * @returns {boolean}
 */
function match(P, x, useEnv, macroEnv, b) {
  switch (P.t) {
    case 'any':
      return true;
    case 'var':
      b.set(P.id, x);
      return true;
    case 'lit':
      return isIdentifier(x) && freeIdentifierEquals(x, useEnv, P.id, macroEnv);
    case 'const':
      return atomEqual(x, P.v);
    case 'list':
    case 'vec': {
      if (P.t === 'vec' && !Array.isArray(x)) return false;
      if (P.ell === null && P.t === 'list') {
        let t = x;
        for (const hp of P.head) {
          if (!(t instanceof Pair) || !match(hp, t.car, useEnv, macroEnv, b)) return false;
          t = t.cdr;
        }
        return P.rest !== null ? match(P.rest, t, useEnv, macroEnv, b) : t === null;
      }
      /** @type {any[]} */
      let items;
      let t = null;
      if (P.t === 'vec') {
        items = x;
      } else {
        const s = spine(x);
        if (s === null) return false;
        items = s.items;
        t = s.tail;
        if (P.rest === null && t !== null) return false;
      }
      const h = P.head.length;
      const n = items.length - h - P.after.length;
      if (n < 0 || (P.ell === null && n !== 0)) return false;
      for (let i = 0; i < h; i++) if (!match(P.head[i], items[i], useEnv, macroEnv, b)) return false;
      if (P.ell !== null) {
        const seqs = P.ellVars.map(() => /** @type {any[]} */ ([]));
        for (let i = 0; i < n; i++) {
          const b2 = new Map();
          if (!match(P.ell, items[h + i], useEnv, macroEnv, b2)) return false;
          for (let j = 0; j < seqs.length; j++) seqs[j].push(b2.get(P.ellVars[j]));
        }
        for (let j = 0; j < seqs.length; j++) b.set(P.ellVars[j], seqs[j]);
      }
      for (let i = 0; i < P.after.length; i++) if (!match(P.after[i], items[h + n + i], useEnv, macroEnv, b)) return false;
      return P.rest !== null ? match(P.rest, t, useEnv, macroEnv, b) : true;
    }
    default:
      throw new ExpanderBug(`unknown pattern node ${P.t}`);
  }
}

/** equal? on the atoms a pattern can contain (numbers, strings, chars, booleans). @param {any} x @param {any} v */
function atomEqual(x, v) {
  if (x === v) return true;
  if (x instanceof Flonum && v instanceof Flonum) return Object.is(x.v, v.v);
  if (x instanceof Ratnum && v instanceof Ratnum) return x.num === v.num && x.den === v.den;
  if (x instanceof Uint8Array && v instanceof Uint8Array) return x.length === v.length && x.every((e, i) => e === v[i]);
  return false;
}

/**
 * The elements of a proper list, or a syntax error.
 * @param {any} l @param {any} form @param {Loc|null} loc @param {string} what
 * @returns {any[]}
 */
function properList(l, form, loc, what) {
  const s = spine(l);
  if (s === null || s.tail !== null) syntaxError(WHO, what, form, loc);
  return s.items;
}

