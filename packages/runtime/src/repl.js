// @ts-check
/**
 * Evaluation on a live node — the REPL of `termite-node repl` and of the dashboard:
 * each datum is compiled in an environment that remembers definitions, macros and
 * imports (the Scheme package's Evaluator), then run as a process on the node, so it
 * can spawn, send, receive and use tuple spaces. Output is captured per evaluation by a
 * collector process: `display` in the evaluated code (and in processes it spawns,
 * which inherit the binding) arrives there in order. The inputs run in one long-lived
 * process, %repl-server (scheme-sources/repl.scm). A terminal REPL gives `outputPid`
 * instead: every evaluation (and every process it spawns, for as long as it lives)
 * writes to that process (the node's stdout process), so output streams as it happens.
 *
 * `interrupt()` raises an 'interrupt error in the REPL's process at its next slice (at
 * once if it waits): the evaluation ends with that error, the process and every
 * definition stay. The last error an input ended with is kept in `lastError`.
 *
 * Invariants: an input whose process ends without answering — `(exit)`, or killed — is
 * answered at once (`exited` holds the exit code; later inputs of the same text are not
 * run), never by waiting for the time bound; the next input starts a new process. A
 * timed-out input stops the process it ran in, never a newer one.
 */
import { Evaluator, SchemeError, describeError, Pair } from '@termite/scheme';
import { rtEnv } from '@termite/scheme/internal';
import { makeProcessPort } from './termite-node.js';
import { registerUnitInstance } from './code.js';
import { JsProcess } from './js-api.js';
import { Sym, arrayToList, Values, ErrorObject } from '@termite/scheme';
import { definePrimitive, ACT_CALL } from '@termite/scheme/internal';
import { current } from './prims-processes.js';
import { Pid } from './termite-values.js';
import { trapExits } from './termite-node/links-and-signals.js';

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
   * @param {{libraryPath?: string[], readFile?: (p: string) => string|null, envId?: string, outputPid?: Pid, onLinkedExit?: (payload: any, from: Pid|null) => void}} [opts]
   *   outputPid: the process every evaluation writes to (else one collector per evaluation);
   *   onLinkedExit: the REPL's process traps exits, as erl's shell does — a linked process
   *   that dies is reported through this, and the REPL keeps its pid and mailbox
   */
  constructor(node, opts = {}) {
    this.node = node;
    this.outputPid = opts.outputPid ?? null;
    this.onLinkedExit = opts.onLinkedExit ?? null;
    /** @type {any} the payload of the last error an input ended with (an ErrorObject, or any raised value) */
    this.lastError = null;
    // the environment's id names it across the mesh: closures defined at this REPL refer to it
    this.evaluator = new Evaluator({ ...opts, envId: opts.envId ?? `repl:${node.id}:${INSTANCE}:${++evaluators}` });
    node.environments.set(this.evaluator.env.id, this.evaluator.env);
    this.evaluator.onUnit = registerUnitInstance;
    /** @type {import('./termite-node.js').Process|null} the REPL's process */
    this.server = null;
    /** @type {Set<(outcome: {ok: boolean, value: any, exitCode: any}) => void>} inputs waiting on this.server */
    this.waiting = new Set();
  }

  /**
   * Evaluate the datums of `text` in order.
   * @param {string} text
   * @param {{onOutput?: (s: string) => void, timeoutMs?: number}} [opts]
   * @returns {Promise<{incomplete: boolean, ok: boolean, outputs: string[], exited?: any}>}
   *   outputs: per datum, what it printed followed by its values (written), or the error;
   *   exited: the code given to `exit` when a datum called it (the datums after it are
   *   not run: what exiting means is the caller's to decide)
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
      if (res.exited !== undefined) return { incomplete: false, ok, outputs, exited: res.exited };
    }
    return { incomplete: false, ok, outputs };
  }

  /** The REPL's process, started when there is none (or it ended). */
  serverProcess() {
    if (this.server !== null && this.server.alive) return this.server;
    const server = this.node.spawnCall(rtEnv.cell('%repl-server').v, []);
    this.server = server;
    const report = this.onLinkedExit;
    if (report !== null) {
      trapExits(this.node, server.pid, (payload, from) => {
        this.lastError = payload; // ,bt shows the frames of the process that died
        report(payload, from);
      });
    }
    const waiting = new Set();
    this.waiting = waiting;
    // the process ended (exit, killed): the inputs it had are answered now, not at the bound
    server.onExit = (outcome) => {
      if (this.server === server) this.server = null;
      const exitCode = /** @type {any} */ (server).exitCode;
      for (const w of [...waiting]) w({ ok: outcome.ok, value: outcome.value, exitCode });
      waiting.clear();
    };
    return server;
  }

  /**
   * @param {any} datum
   * @param {{onOutput?: (s: string) => void, timeoutMs?: number}} opts
   * @returns {Promise<{ok: boolean, text: string, exited?: any}>}
   */
  async evalDatum(datum, opts) {
    const node = this.node;
    /** @type {string[]} */
    const printed = [];
    const collector = this.outputPid !== null ? null : node.spawnHandler((s) => {
      printed.push(String(s));
      opts.onOutput?.(String(s));
    });
    const out = this.outputPid ?? /** @type {any} */ (collector).pid;
    const box = new JsProcess(node);
    try {
      let top;
      try {
        top = this.evaluator.compileDatum(datum);
      } catch (e) {
        if (e instanceof SchemeError) return { ok: false, text: `Error: ${describeError(e.payload)}` };
        throw e;
      }
      const server = this.serverProcess();
      box.send(server.pid, arrayToList([Sym.intern('%repl-job'), top, out, box.pid]));
      const reply = await this.answer(server, box, opts.timeoutMs);
      if (collector !== null) node.runHandler(collector, false);
      else node.flushStdout(); // what the evaluation printed comes before its value
      return this.outcome(reply, printed.join(''), opts.timeoutMs);
    } finally {
      box.exit();
      if (collector !== null) node.finish(collector, false, null);
    }
  }

  /**
   * What an input's reply means, as text (the output before it), and the error kept.
   * @param {any} reply @param {string} out @param {number|undefined} timeoutMs
   * @returns {{ok: boolean, text: string, exited?: any}}
   */
  outcome(reply, out, timeoutMs) {
    if (reply === 'timeout') return { ok: false, text: `${out}Error: the evaluation took longer than ${timeoutMs} ms and was stopped` };
    if ('exitCode' in reply) {
      if (!reply.ok) {
        this.lastError = reply.value;
        return { ok: false, text: `${out}Error: the REPL's process was stopped: ${describeError(reply.value)}` };
      }
      return { ok: true, text: out, exited: reply.exitCode ?? true };
    }
    if (reply.car === Sym.intern('error')) {
      this.lastError = reply.cdr.car;
      return { ok: false, text: `${out}Error: ${describeError(reply.cdr.car)}` };
    }
    const vals = [];
    for (let p = reply.cdr; p instanceof Pair; p = p.cdr) vals.push(p.car);
    const shown = Evaluator.show(vals.length === 1 ? vals[0] : new Values(vals));
    return { ok: true, text: out + (out && shown && !out.endsWith('\n') ? '\n' : '') + shown };
  }

  /**
   * Interrupt the running evaluation: an 'interrupt error is raised in the REPL's
   * process at its next slice, or at once if it waits (a receive, a sleep, a remote
   * call). False when there is no such process.
   */
  interrupt() {
    const server = this.server;
    // only during an input: between inputs the process waits in %repl-server's own loop
    if (server === null || !server.alive || this.waiting.size === 0) return false;
    // the message is what %repl-server (repl.scm) knows an interrupt by
    const payload = new ErrorObject('interrupted (Ctrl-C)', null, 'interrupt', null);
    if (server.waiting !== null) {
      this.node.signal(server.pid, payload);
      return true;
    }
    // ready or between slices (this runs in its own task, never inside a slice): its
    // pending action is replaced by the raise, in its own dynamic state (handlers,
    // guards), so the input's guard in %repl-server answers it
    const th = /** @type {any} */ (server);
    th.act = ACT_CALL;
    th.clo = rtEnv.cell('raise').v;
    th.args = [payload];
    return true;
  }

  /** Stop the REPL's process (an evaluation that ignores interrupts); definitions stay. */
  kill() {
    const server = this.server;
    if (server !== null && server.alive) this.node.terminate(server.pid);
  }

  /** The names defined or imported in this environment (for completion). @returns {string[]} */
  globalNames() {
    const names = new Set();
    for (const id of /** @type {any} */ (this.evaluator).expandEnv.top.map.keys()) {
      const name = (id.sym ?? id).name;
      if (typeof name === 'string') names.add(name);
    }
    return [...names];
  }

  /** Keys of the libraries this environment has loaded ("(my lib)"). @returns {string[]} */
  loadedLibraries() {
    return [.../** @type {any} */ (this.evaluator).expandEnv.session.libraries.keys()].filter((k) => typeof k === 'string');
  }

  /**
   * The server's reply to the input just sent, its end if it ends first, or 'timeout'
   * (then that server is stopped: a newer one is never touched).
   * @param {import('./termite-node.js').Process} server @param {JsProcess} box @param {number|undefined} timeoutMs
   * @returns {Promise<any>}
   */
  async answer(server, box, timeoutMs) {
    const waiting = this.waiting;
    /** @type {(outcome: any) => void} */
    let onEnd = () => {};
    const ended = new Promise((resolve) => {
      onEnd = resolve;
      waiting.add(onEnd);
    });
    try {
      return await Promise.race([box.receive(timeoutMs === undefined ? {} : { timeoutMs }), ended]);
    } catch {
      if (server.alive) this.node.terminate(server.pid);
      if (this.server === server) this.server = null;
      return 'timeout';
    } finally {
      waiting.delete(onEnd);
      // the process ended first: the receive's timer must not outlive the input
      if (box.waiter !== null && box.waiter.timer !== null) clearTimeout(box.waiter.timer);
      box.waiter = null;
    }
  }
}
