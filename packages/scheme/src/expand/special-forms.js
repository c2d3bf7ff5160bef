// @ts-check
/**
 * The table of every keyword the expander implements, by name: special forms (with
 * their expression handler; definition contexts also recognise some of them by name,
 * see definitions.js) and auxiliary syntax (`else`, `=>`, `...`, `_`, `unquote`,
 * `unquote-splicing`), which only mean something inside other forms.
 *
 * Libraries export these bindings (stdlib.js lists which library exports which name);
 * a binding object is made once per name, so importing `if` from two libraries gives
 * the same binding.
 */
import { coreForms } from './forms-core.js';
import { letForms } from './forms-let.js';
import { condForms } from './forms-cond.js';
import { controlForms } from './forms-control.js';
import { quasiquoteForms } from './quasiquote.js';
import { transformerForms } from './transformers.js';
import { termiteForms } from './forms-termite.js';
import { ExpanderBug } from './errors.js';

/** @typedef {import('./hygiene.js').Binding} Binding */

const AUX = ['else', '=>', '...', '_', 'unquote', 'unquote-splicing'];

/** @type {Map<string, Binding>} */
const table = new Map();

for (const forms of [coreForms, letForms, condForms, controlForms, quasiquoteForms, transformerForms, termiteForms]) {
  for (const [name, handler] of Object.entries(forms)) {
    if (table.has(name)) throw new ExpanderBug(`special form ${name} defined twice`);
    table.set(name, { kind: 'special', name, handler });
  }
}
for (const name of AUX) table.set(name, { kind: 'aux', name });

/**
 * The binding of the keyword `name`.
 * @param {string} name @returns {Binding}
 */
export function keywordBinding(name) {
  const b = table.get(name);
  if (b === undefined) throw new ExpanderBug(`no special form or auxiliary keyword named ${name}`);
  return b;
}

/** @param {string} name */
export const isKeywordName = (name) => table.has(name);
