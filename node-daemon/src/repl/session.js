// @ts-check
/**
 * One REPL session, whatever it reads from: an entry (the text of one or more complete
 * datums, or a comma command) is evaluated on the node and its results printed each on
 * a line of its own through the ConsoleOut; what the entry's processes display
 * streams there as it happens (the evaluator writes to the node's stdout process).
 * The session ends on `,quit`, or with a status on `(exit N)`.
 */
import { exitStatus } from '../cli.js';
import { runCommand } from './commands.js';

export class ReplSession {
  /**
   * @param {{node: any, host: any|null, evaluator: import('@termite/runtime').NodeEvaluator, out: import('./console-out.js').ConsoleOut}} parts
   */
  constructor(parts) {
    this.node = parts.node;
    this.host = parts.host;
    this.evaluator = parts.evaluator;
    this.out = parts.out;
    /** @type {import('./commands.js').CommandContext} */
    this.ctx = {
      node: parts.node,
      host: parts.host,
      evaluator: parts.evaluator,
      evaluate: (text) => this.evaluator.evalText(text),
    };
    /** Whether an entry is being evaluated (Ctrl-C interrupts it). */
    this.busy = false;
  }

  /**
   * Whether `text` still misses the end of a datum (an open list or string).
   * @param {string} text
   */
  incomplete(text) {
    const scheme = /^\s*,/.test(text) ? text.replace(/^\s*,\s*[\w-]*/, '') : text;
    if (scheme.trim() === '') return false;
    return this.evaluator.evaluator.readText(scheme).incomplete;
  }

  /**
   * Evaluate one complete entry.
   * @param {string} text
   * @returns {Promise<{quit?: boolean, status?: number}>}
   */
  async enter(text) {
    if (text.trim() === '') return {};
    this.busy = true;
    try {
      if (/^\s*,/.test(text)) {
        const r = await runCommand(this.ctx, text);
        if (r.text !== undefined) this.out.result(r.text);
        if (r.quit) return { quit: true };
        if (r.exited !== undefined) return { quit: true, status: exitStatus(r.exited) };
        return {};
      }
      const r = await this.evaluator.evalText(text);
      for (const o of r.outputs) this.out.result(o);
      if (r.exited !== undefined) return { quit: true, status: exitStatus(r.exited) };
      return {};
    } finally {
      this.busy = false;
    }
  }
}
