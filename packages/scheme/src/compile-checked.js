// @ts-check
/**
 * The compiler pipeline (pipeline.js) as the runtime's entry points call it: a pass that
 * runs out of JS stack on deeply nested code (the passes recurse over the expression
 * tree) becomes a Scheme error of kind 'resource' naming the unit, instead of a RangeError
 * that would take down the caller (a node, a REPL). It compiles against this process's
 * primitives (engine/registry.js), which the pipeline itself does not import.
 */
import { compileUnit } from './pipeline.js';
import { primitives } from './engine/registry.js';
import { SchemeError, ErrorObject } from './values.js';

/**
 * @param {import('./ir/core.js').CoreUnit} core
 * @param {Omit<import('./pipeline.js').CompileOptions, 'primitives'>} [opts]
 * @returns {{hash: string, wire: any}}
 */
export function compileUnitChecked(core, opts) {
  try {
    return compileUnit(core, { ...opts, primitives });
  } catch (e) {
    if (e instanceof RangeError && /call stack/i.test(e.message)) {
      throw new SchemeError(new ErrorObject(
        `${core.name}: the compiler ran out of JavaScript stack: an expression is nested too deeply`,
        null, 'resource', 'compile'));
    }
    throw e;
  }
}
