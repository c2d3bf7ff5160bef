// @ts-check
/**
 * The REPL at a terminal: readline for line editing, Tab completion and history (kept
 * across sessions, a multi-line entry as one line), and the keys erl users expect:
 *  - Ctrl-C on a half-typed entry clears it; on an empty prompt it says how to leave;
 *    during an evaluation it interrupts it (the REPL's process gets an 'interrupt
 *    error), and a second Ctrl-C in the same evaluation stops the REPL's process;
 *    definitions stay in every case;
 *  - Ctrl-D on an empty line, or `,quit`, leaves; `(exit N)` leaves with status N.
 * Lines typed during an evaluation wait their turn, in order.
 */
import readline from 'node:readline';
import { makeCompleter } from './completion.js';
import { COMMAND_NAMES } from './commands.js';
import { historyFile, loadHistory, HistoryWriter, oneLine } from './history.js';

const PROMPT = 'termite> ';
const CONTINUE = '....... ';

/**
 * @param {import('./session.js').ReplSession} session
 * @param {NodeJS.ReadableStream} input @param {NodeJS.WritableStream} output
 * @returns {Promise<number>} the exit status
 */
export function runTerminal(session, input, output) {
  return new TerminalRepl(session, input, output).run();
}

class TerminalRepl {
  /**
   * @param {import('./session.js').ReplSession} session
   * @param {NodeJS.ReadableStream} input @param {NodeJS.WritableStream} output
   */
  constructor(session, input, output) {
    this.session = session;
    this.output = output;
    this.out = session.out;
    const file = historyFile();
    const warn = (/** @type {string} */ s) => this.out.log(`termite: ${s}`);
    this.rl = readline.createInterface({
      input,
      output,
      terminal: true,
      history: loadHistory(file, warn),
      historySize: 1000,
      removeHistoryDuplicates: true,
      completer: makeCompleter(session.evaluator, COMMAND_NAMES),
      tabSize: 2,
    });
    this.out.rl = this.rl;
    this.history = new HistoryWriter(file, warn);
    /** @type {string[]} lines typed, not yet part of an entry */
    this.queue = [];
    this.pending = ''; // the lines of the entry being typed
    this.pendingLines = 0;
    this.interrupts = 0; // Ctrl-C presses during the current evaluation
    this.working = false;
    this.closed = false;
    this.status = 0;
    /** @type {(status: number) => void} */
    this.finish = () => {};
  }

  /** @returns {Promise<number>} */
  run() {
    const done = new Promise((resolve) => (this.finish = resolve));
    this.rl.on('line', (line) => {
      this.out.lineEntered();
      this.queue.push(line);
      if (!this.working) this.work().catch((e) => this.fail(e));
    });
    this.rl.on('SIGINT', () => this.onInterrupt());
    this.rl.on('close', () => this.onClose());
    this.output.write(`Termite Scheme REPL on node ${this.session.node.id.slice(0, 12)}. ,help for commands, ,quit or Ctrl-D to leave.\n`);
    this.showPrompt();
    return done;
  }

  showPrompt() {
    if (!this.closed) this.out.prompt(this.pending === '' ? PROMPT : CONTINUE);
  }

  /** Evaluate the queued lines, entry by entry, one at a time. */
  async work() {
    this.working = true;
    try {
      while (this.queue.length > 0) {
        this.pending += this.queue.shift() + '\n';
        this.pendingLines++;
        if (this.session.incomplete(this.pending)) continue;
        const entry = this.pending;
        this.remember(entry, this.pendingLines);
        this.pending = '';
        this.pendingLines = 0;
        this.interrupts = 0;
        const r = await this.session.enter(entry);
        if (r.quit) {
          this.status = r.status ?? 0;
          this.closed = true;
          this.rl.close();
          break;
        }
      }
    } finally {
      this.working = false;
    }
    if (this.closed) this.finish(this.status);
    else this.showPrompt();
  }

  /**
   * The entry just completed replaces its lines in readline's history, as one line,
   * and is saved.
   * @param {string} entry @param {number} lines
   */
  remember(entry, lines) {
    const h = /** @type {any} */ (this.rl).history;
    const one = oneLine(entry);
    if (Array.isArray(h)) {
      if (lines > 1) h.splice(0, Math.min(lines, h.length));
      if (one !== '' && h[0] !== one) h.unshift(one);
    }
    this.history.add(one);
  }

  /** Ctrl-C: interrupt the evaluation (twice: stop its process), or clear the entry. */
  onInterrupt() {
    const out = this.out;
    if (this.session.busy) {
      this.interrupts++;
      this.queue.length = 0;
      if (this.interrupts === 1) {
        if (!this.session.evaluator.interrupt()) out.log('(nothing to interrupt yet: Ctrl-C again stops the REPL\'s process)');
      } else {
        this.session.evaluator.kill();
        out.log('(stopped the REPL\'s process; definitions are kept, (self) is a new process)');
      }
      return;
    }
    const rl = /** @type {any} */ (this.rl);
    const typed = rl.line !== '' || this.pending !== '';
    this.output.write(typed ? '^C\n' : '\n');
    rl.line = '';
    rl.cursor = 0;
    this.pending = '';
    this.pendingLines = 0;
    out.lineEntered();
    if (!typed) out.result('(to leave, type ,quit or press Ctrl-D)');
    this.showPrompt();
  }

  /** Ctrl-D on an empty line, or the end of the input: leave once the queue is done. */
  onClose() {
    if (this.closed) return;
    this.closed = true;
    this.out.rl = null;
    this.out.lineEntered();
    this.output.write('\n');
    if (!this.working) this.finish(this.status);
  }

  /** @param {any} e */
  fail(e) {
    this.out.log(`termite: the REPL failed: ${e instanceof Error ? e.stack : e}`);
    this.status = 70;
    this.closed = true;
    this.rl.close();
    this.finish(this.status);
  }
}
