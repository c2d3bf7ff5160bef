// @ts-check
/**
 * syntax-rules templates: compiling them (with the variables that drive each ellipsis)
 * and instantiating them for one macro use.
 *
 * A compiled template is a tree of `var` (a pattern variable), `id` (an identifier the
 * template inserts), `const`, and `list`/`vec` nodes whose items carry how many
 * ellipses follow them (`k`) and, for each of those ellipsis levels, the pattern
 * variables whose sequences that level iterates over (`ctl`). A variable may appear
 * under MORE ellipses than in its pattern (it is repeated), never fewer; every
 * ellipsis level needs at least one variable to iterate.
 *
 * Instantiation renames each inserted identifier to one fresh Alias per expansion
 * (see hygiene.js) and inserts pattern variables' matches as they are, so the cost
 * follows the template's size, not the size of the user's data.
 */
import { Pair, arrayToList } from '../values.js';
import { Alias, isIdentifier, rootSym } from './hygiene.js';
import { syntaxError, ExpanderBug } from './errors.js';
import { spine } from './util.js';

/** @typedef {import('./hygiene.js').Identifier} Identifier */
/** @typedef {import('../ir/core.js').Loc} Loc */

/**
 * What template compilation needs to know about its syntax-rules form.
 * @typedef {object} TemplateCtx
 * @property {string} name                     the macro, for messages
 * @property {Loc|null} loc
 * @property {(x: any) => boolean} isEllipsis  whether x is this form's ellipsis
 */

/** The macro being expanded: its name (for messages) and definition scope. @typedef {{name: string, env: import('./hygiene.js').Scope}} MacroRef */

/**
 * @param {any} t @param {TemplateCtx} ctx @param {Map<Identifier, number>} vars
 * @param {number} level ellipses enclosing this template
 * @param {boolean} ellOn whether the ellipsis is special here (false inside (... ...))
 * @param {Set<Identifier>} used pattern variables occurring in this template, filled in
 * @returns {any}
 */
export function compileTemplate(t, ctx, vars, level, ellOn, used) {
  if (isIdentifier(t)) {
    const d = vars.get(t);
    if (d !== undefined) {
      if (d > level) syntaxError(ctx.name, `pattern variable ${rootSym(t).name} is used with too few ellipses in the template`, t, ctx.loc);
      used.add(t);
      return { t: 'var', id: t };
    }
    if (ellOn && ctx.isEllipsis(t)) syntaxError(ctx.name, 'misplaced ellipsis in template', t, ctx.loc);
    return { t: 'id', id: t };
  }
  if (t instanceof Pair && ellOn && ctx.isEllipsis(t.car)) {
    if (!(t.cdr instanceof Pair) || t.cdr.cdr !== null) syntaxError(ctx.name, '(... template) takes one template', t, ctx.loc);
    return compileTemplate(t.cdr.car, ctx, vars, level, false, used);
  }
  if (t instanceof Pair || Array.isArray(t)) {
    const elems = [];
    let rest = null;
    if (Array.isArray(t)) elems.push(...t);
    else {
      const s = spine(t) ?? syntaxError(ctx.name, 'circular template', t, ctx.loc);
      elems.push(...s.items);
      rest = s.tail;
    }
    const items = [];
    for (let i = 0; i < elems.length; i++) {
      let k = 0;
      while (ellOn && i + 1 + k < elems.length && ctx.isEllipsis(elems[i + 1 + k])) k++;
      /** @type {Set<Identifier>} */
      const inner = new Set();
      const tp = compileTemplate(elems[i], ctx, vars, level + k, ellOn, inner);
      /** @type {Identifier[][]} */
      const ctl = [];
      for (let j = 1; j <= k; j++) ctl.push([...inner].filter((v) => /** @type {number} */ (vars.get(v)) >= level + j));
      if (ctl.some((c) => c.length === 0)) syntaxError(ctx.name, 'a template is followed by more ellipses than its pattern variables have', elems[i], ctx.loc);
      for (const v of inner) used.add(v);
      items.push({ tp, k, ctl });
      i += k;
    }
    if (rest !== null && ellOn && ctx.isEllipsis(rest)) syntaxError(ctx.name, 'misplaced ellipsis in template', t, ctx.loc);
    const restT = rest === null ? null : compileTemplate(rest, ctx, vars, level, ellOn, used);
    return { t: Array.isArray(t) ? 'vec' : 'list', items, rest: restT };
  }
  return { t: 'const', v: t };
}

/**
 * @param {any} T compiled template @param {Map<Identifier, any>} b
 * @param {Map<Identifier, Alias>} ren this expansion's renaming @param {MacroRef} macro
 * @param {Loc|null} loc
 * @returns {any}
 */
export function instantiate(T, b, ren, macro, loc) {
  switch (T.t) {
    case 'var':
      return b.get(T.id);
    case 'id': {
      let a = ren.get(T.id);
      if (a === undefined) ren.set(T.id, (a = new Alias(T.id, macro.env)));
      return a;
    }
    case 'const':
      return T.v;
    case 'list':
    case 'vec': {
      const out = [];
      for (const item of T.items) {
        if (item.k === 0) out.push(instantiate(item.tp, b, ren, macro, loc));
        else repeat(item, 0, b, ren, macro, loc, out);
      }
      if (T.t === 'vec') return out;
      return arrayToList(out, T.rest === null ? null : instantiate(T.rest, b, ren, macro, loc));
    }
    default:
      throw new ExpanderBug(`unknown template node ${T.t}`);
  }
}

/**
 * Instantiate `item.tp` once per element of the sequences its controlling variables
 * matched, for ellipsis level `j` and deeper, appending the results to `out`.
 * @param {{tp: any, k: number, ctl: Identifier[][]}} item @param {number} j
 * @param {Map<Identifier, any>} b @param {Map<Identifier, Alias>} ren @param {MacroRef} macro
 * @param {Loc|null} loc @param {any[]} out
 */
function repeat(item, j, b, ren, macro, loc, out) {
  if (j === item.k) {
    out.push(instantiate(item.tp, b, ren, macro, loc));
    return;
  }
  const ctl = item.ctl[j];
  let n = -1;
  for (const v of ctl) {
    const seq = b.get(v);
    if (!Array.isArray(seq)) throw new ExpanderBug(`pattern variable ${rootSym(v).name} has no sequence at ellipsis level ${j}`);
    if (n < 0) n = seq.length;
    else if (seq.length !== n) {
      syntaxError(macro.name, `the pattern variables ${ctl.map((v) => rootSym(v).name).join(', ')} under one ellipsis matched different numbers of forms`, undefined, loc);
    }
  }
  for (let i = 0; i < n; i++) {
    const b2 = new Map(b);
    for (const v of ctl) b2.set(v, b.get(v)[i]);
    repeat(item, j + 1, b2, ren, macro, loc, out);
  }
}
