// @ts-check
/**
 * An interactive evaluation environment (the REPL's, the dashboard's, R7RS
 * `interaction-environment`): reads text, expands each datum in an environment that
 * remembers definitions, macros and imports, compiles it, runs it, and reports what it
 * printed and the values it returned — or the error, without losing the environment.
 */
import { boot, consoleSinks } from './engine/boot.js';
import { Reader } from './reader.js';
import { createEnvironment, expandInEnvironment } from './expand/index.js';
import { compileUnitChecked } from './compile-checked.js';
import { Environment, instantiate, libraryEnvs } from './engine/linker.js';
import { Thread, runToCompletion } from './engine/driver.js';
import { writeString } from './printer.js';
import { SchemeError, EOF, VOID, Values } from './values.js';
import { describeError } from './describe-error.js';
import { interactionEnvironment } from './engine/eval.js';

let replCounter = 0;

export class Evaluator {
  /**
   * @param {{libraryPath?: string[], readFile?: (p: string) => string|null, write?: (s: string) => void, envId?: string, interaction?: boolean}} [opts]
   *   interaction: evaluate in the node's interaction environment (R7RS
   *   `interaction-environment`), so what the user defines here `eval` sees there too;
   *   libraryPath and readFile are then those of eval environments (runtime/eval.js)
   */
  constructor(opts = {}) {
    boot();
    this.opts = opts;
    if (opts.interaction) {
      const ie = interactionEnvironment();
      this.expandEnv = ie.expandEnv;
      this.env = ie.env;
    } else {
      this.expandEnv = createEnvironment(null, { libraryPath: opts.libraryPath ?? [], readFile: opts.readFile, file: 'repl' });
      this.env = new Environment(opts.envId ?? `repl:${++replCounter}`);
    }
    /** @type {((inst: any) => void)|undefined} called with every unit instantiated (code registries) */
    this.onUnit = undefined;
  }

  /**
   * Evaluate every datum of `text` in order.
   * @param {string} text
   * @returns {{incomplete: boolean, outputs: string[], ok: boolean}}
   *   incomplete: the text ends inside a datum (read more and call again with it all);
   *   outputs: for each datum, what it printed followed by its values (written), or the error
   */
  evalText(text) {
    const r = this.readText(text);
    if (r.incomplete) return { incomplete: true, outputs: [], ok: true };
    if (r.error !== null) return { incomplete: false, outputs: [r.error], ok: false };
    const outputs = [];
    let ok = true;
    for (const d of r.datums) {
      const res = this.evalDatum(d);
      outputs.push(res.text);
      ok &&= res.ok;
    }
    return { incomplete: false, outputs: outputs.filter((s) => s !== ''), ok };
  }

  /**
   * Expand and compile one datum in this environment; returns the closure that runs
   * it (libraries it imports are instantiated first).
   * @param {any} datum
   * @returns {any} a thunk
   */
  compileDatum(datum) {
    const { units } = expandInEnvironment(datum, this.expandEnv);
    let top = null;
    for (const u of units) {
      const { hash, wire } = compileUnitChecked(u, { writeDatum: writeString });
      if (u.kind === 'library') {
        const ns = /** @type {any} */ (u).ns ?? `lib:${u.name}`;
        if (libraryEnvs.has(ns)) continue;
        const env = new Environment(ns);
        libraryEnvs.set(ns, env);
        const r = runToCompletion(new Thread(instantiate(wire, hash, env).top, []));
        if (!r.ok) throw new SchemeError(r.error);
      } else {
        const inst = instantiate(wire, hash, this.env);
        this.onUnit?.(inst);
        top = inst.top;
      }
    }
    return top;
  }

  /**
   * The text a REPL shows for a result: each value written on its own line (none for
   * the unspecified value).
   * @param {any} value
   */
  static show(value) {
    const values = value instanceof Values ? value.vals : value === VOID ? [] : [value];
    return values.map((v) => writeString(v)).join('\n');
  }

  /**
   * Evaluate one datum on this JS stack (no processes).
   * @param {any} datum
   * @returns {{ok: boolean, text: string, values: any[]}}
   */
  evalDatum(datum) {
    /** @type {string[]} */
    const printed = [];
    const saved = consoleSinks.stdout;
    consoleSinks.stdout = (s) => printed.push(s);
    try {
      const top = this.compileDatum(datum);
      const r = runToCompletion(new Thread(top, []));
      if (!r.ok) return { ok: false, text: printed.join('') + `Error: ${describeError(r.error)}`, values: [] };
      const values = r.value instanceof Values ? r.value.vals : r.value === VOID ? [] : [r.value];
      const shown = Evaluator.show(r.value);
      const out = printed.join('');
      return { ok: true, text: out + (out && shown && !out.endsWith('\n') ? '\n' : '') + shown, values };
    } catch (e) {
      if (e instanceof SchemeError) return { ok: false, text: printed.join('') + `Error: ${describeError(e.payload)}`, values: [] };
      throw e;
    } finally {
      consoleSinks.stdout = saved;
    }
  }

  /**
   * Read the datums of `text`: {incomplete: true} when it ends inside a datum, else
   * the datums or the read error.
   * @param {string} text
   * @returns {{incomplete: boolean, datums: any[], error: string|null}}
   */
  readText(text) {
    const reader = new Reader(text, { file: 'repl' });
    const datums = [];
    try {
      for (let n = 0; n < 100000; n++) {
        const d = reader.read();
        if (d === EOF) break;
        datums.push(d);
      }
    } catch (e) {
      if (e instanceof SchemeError && /unterminated|unexpected end of (file|input)/.test(e.payload?.message ?? '')) {
        return { incomplete: true, datums: [], error: null };
      }
      return { incomplete: false, datums: [], error: `Error: ${e instanceof SchemeError ? describeError(e.payload) : String(e)}` };
    }
    return { incomplete: false, datums, error: null };
  }
}
