// @ts-check
/**
 * Evaluation on a live node — the REPL of `termite-node repl` and of the dashboard:
 * each datum is compiled in an environment that remembers definitions, macros and
 * imports (the Scheme package's Evaluator), then run as a process on the node, so it
 * can spawn, send, receive and use tuple spaces. Output is captured per evaluation by a
 * collector process: `display` in the evaluated code (and in processes it spawns,
 * which inherit the binding) arrives there in order. The inputs run in one long-lived
 * process, %repl-server (scheme-sources/repl.scm).
 */
import { Evaluator, SchemeError, describeError, Pair } from '@termite/scheme';
import { rtEnv } from '@termite/scheme/internal';
import { makeProcessPort } from './termite-node.js';
import { registerUnitInstance } from './code.js';
import { JsProcess } from './js-api.js';
import { Sym, arrayToList, Values } from '@termite/scheme';
import { definePrimitive } from '@termite/scheme/internal';
import { current } from './prims-processes.js';
import { Pid } from './termite-values.js';

definePrimitive('%process-port', 1, 1, (/** @type {any} */ pid) => {
  if (!(pid instanceof Pid)) throw new Error('%process-port: expected a pid');
  return makeProcessPort(current('%process-port').node, pid);
});

let evaluators = 0;
/** This JS process's nonce: REPL environment ids stay unique across restarts of a node. */
const INSTANCE = crypto.getRandomValues(new Uint32Array(1))[0].toString(16);

export class NodeEvaluator {
  /**
   * @param {import('./termite-node.js').TermiteNode} node
   * @param {{libraryPath?: string[], readFile?: (p: string) => string|null, envId?: string}} [opts]
   */
  constructor(node, opts = {}) {
    this.node = node;
    // the environment's id names it across the mesh: closures defined at this REPL refer to it
    this.evaluator = new Evaluator({ ...opts, envId: opts.envId ?? `repl:${node.id}:${INSTANCE}:${++evaluators}` });
    node.environments.set(this.evaluator.env.id, this.evaluator.env);
    this.evaluator.onUnit = registerUnitInstance;
    /** @type {import('./termite-node.js').Process|null} the REPL's process */
    this.server = null;
  }

  /**
   * Evaluate the datums of `text` in order.
   * @param {string} text
   * @param {{onOutput?: (s: string) => void, timeoutMs?: number}} [opts]
   * @returns {Promise<{incomplete: boolean, ok: boolean, outputs: string[]}>}
   *   outputs: per datum, what it printed followed by its values (written), or the error
   */
  async evalText(text, opts = {}) {
    const r = this.evaluator.readText(text);
    if (r.incomplete) return { incomplete: true, ok: true, outputs: [] };
    if (r.error !== null) return { incomplete: false, ok: false, outputs: [r.error] };
    const outputs = [];
    let ok = true;
    for (const d of r.datums) {
      const res = await this.evalDatum(d, opts);
      if (res.text !== '') outputs.push(res.text);
      ok &&= res.ok;
    }
    return { incomplete: false, ok, outputs };
  }

  /**
   * @param {any} datum
   * @param {{onOutput?: (s: string) => void, timeoutMs?: number}} opts
   * @returns {Promise<{ok: boolean, text: string}>}
   */
  async evalDatum(datum, opts) {
    const node = this.node;
    if (this.server === null || !this.server.alive) {
      this.server = node.spawnCall(rtEnv.cell('%repl-server').v, []);
    }
    /** @type {string[]} */
    const printed = [];
    const collector = node.spawnHandler((s) => {
      printed.push(String(s));
      opts.onOutput?.(String(s));
    });
    const box = new JsProcess(node);
    try {
      let top;
      try {
        top = this.evaluator.compileDatum(datum);
      } catch (e) {
        if (e instanceof SchemeError) return { ok: false, text: `Error: ${describeError(e.payload)}` };
        throw e;
      }
      box.send(this.server.pid, arrayToList([Sym.intern('%repl-job'), top, collector.pid, box.pid]));
      let reply;
      try {
        reply = await box.receive(opts.timeoutMs === undefined ? {} : { timeoutMs: opts.timeoutMs });
      } catch (e) {
        node.terminate(this.server.pid);
        this.server = null;
        return { ok: false, text: `${printed.join('')}Error: the evaluation took longer than ${opts.timeoutMs} ms and was stopped` };
      }
      node.runHandler(collector, false);
      const out = printed.join('');
      if (reply.car === Sym.intern('error')) return { ok: false, text: `${out}Error: ${describeError(reply.cdr.car)}` };
      const vals = [];
      for (let p = reply.cdr; p instanceof Pair; p = p.cdr) vals.push(p.car);
      const shown = Evaluator.show(vals.length === 1 ? vals[0] : new Values(vals));
      return { ok: true, text: out + (out && shown && !out.endsWith('\n') ? '\n' : '') + shown };
    } finally {
      box.exit();
      node.finish(collector, false, null);
    }
  }
}
