// @ts-check
/**
 * The table of every keyword the expander implements, by name: special forms (with
 * their expression handler; definition contexts also recognise some of them by name,
 * see definitions.js) and auxiliary syntax (`else`, `=>`, `...`, `_`, `unquote`,
 * `unquote-splicing`), which only mean something inside other forms.
 *
 * Libraries export these bindings (stdlib.js lists which library exports which name);
 * a binding object is made once per name, so importing `if` from two libraries gives
 * the same binding. A host package adds its own forms through extension.js
 * (defineSpecialForm below): a name is a keyword once, whoever defines it.
 */
import { coreForms } from './forms-core.js';
import { letForms } from './forms-let.js';
import { condForms } from './forms-cond.js';
import { controlForms } from './forms-control.js';
import { quasiquoteForms } from './quasiquote.js';
import { transformerForms } from './transformers.js';
import { ExpanderBug } from './errors.js';

/** @typedef {import('./hygiene.js').Binding} Binding */

const AUX = ['else', '=>', '...', '_', 'unquote', 'unquote-splicing'];

/** @type {Map<string, Binding>} */
const table = new Map();

for (const forms of [coreForms, letForms, condForms, controlForms, quasiquoteForms, transformerForms]) {
  for (const [name, handler] of Object.entries(forms)) {
    if (table.has(name)) throw new ExpanderBug(`special form ${name} defined twice`);
    table.set(name, { kind: 'special', name, handler });
  }
}
for (const name of AUX) table.set(name, { kind: 'aux', name });

/**
 * Define special forms for a host library (extension.js), all or none. Defining a
 * keyword again with the same handler does nothing; any other definition of an existing
 * keyword is refused.
 * @param {[string, Function][]} forms name and handler @param {string} library for messages
 */
export function defineSpecialForms(forms, library) {
  for (const [name, handler] of forms) {
    const b = table.get(name);
    if (b !== undefined && !(b.kind === 'special' && b.handler === handler)) throw new Error(`${library}: ${name} is already a keyword; a keyword is defined once`);
    if (typeof handler !== 'function') throw new TypeError(`${library}: the special form ${name} needs a handler function`);
  }
  for (const [name, handler] of forms) if (!table.has(name)) table.set(name, { kind: 'special', name, handler });
}

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
