// @ts-check
/**
 * The REPL's screen: output that arrives at any time (every process's `display`, the
 * node's log lines) is written above the prompt without garbling it. When a prompt is
 * shown, the prompt line (with what the user has typed so far) is erased, the output
 * written, and the prompt redrawn after it with the typed text intact. Output that
 * does not end a line stays on the prompt line, before the prompt (as erl shows it),
 * and is rewritten with the next output. Results start on a fresh line.
 *
 * Invariant: `partial` is exactly what is on the screen's last line before the prompt
 * (the text written since the last newline).
 */
import readline from 'node:readline';

export class ConsoleOut {
  /**
   * @param {NodeJS.WritableStream} output
   * @param {NodeJS.WritableStream} errors where log lines go (the same terminal, usually)
   */
  constructor(output, errors) {
    this.output = output;
    this.errors = errors;
    /** @type {readline.Interface|null} set when the REPL reads from a terminal */
    this.rl = null;
    this.partial = '';
    this.promptShown = false;
    this.basePrompt = '';
  }

  /** Output from processes, as it happens. @param {string} text */
  write(text) {
    this.emit(this.output, text);
  }

  /** A log line of the node. @param {string} line */
  log(line) {
    this.emit(this.errors, line.endsWith('\n') ? line : line + '\n');
  }

  /**
   * @param {NodeJS.WritableStream} stream @param {string} text
   */
  emit(stream, text) {
    if (text === '') return;
    const rl = this.rl;
    if (rl === null || !this.promptShown) {
      stream.write(text);
      this.track(text);
      return;
    }
    // erase the prompt line(s): the cursor may be rows below the prompt's start
    const rows = /** @type {any} */ (rl).getCursorPos?.().rows ?? 0;
    if (rows > 0) readline.moveCursor(this.output, 0, -rows);
    readline.cursorTo(this.output, 0);
    readline.clearScreenDown(this.output);
    // the partial line was on the erased line: written again with what follows it
    const before = this.partial;
    this.partial = '';
    // the complete lines are written; the partial line is written by the prompt's redraw
    const screen = stream === this.output ? before + text : text;
    const nl = screen.lastIndexOf('\n');
    if (stream !== this.output && before !== '') this.output.write(before + '\n');
    if (nl >= 0) stream.write(screen.slice(0, nl + 1));
    this.partial = screen.slice(nl + 1);
    this.redraw();
  }

  /** Remember the text after the last newline. @param {string} text */
  track(text) {
    const nl = text.lastIndexOf('\n');
    this.partial = nl < 0 ? this.partial + text : text.slice(nl + 1);
  }

  /** A result or a message of the REPL, on lines of its own. @param {string} text */
  result(text) {
    this.freshLine();
    if (text === '') return;
    this.output.write(text.endsWith('\n') ? text : text + '\n');
  }

  /** Start a new line unless the cursor is at the start of one. */
  freshLine() {
    if (this.partial !== '') {
      this.output.write('\n');
      this.partial = '';
    }
  }

  /** Show a prompt (terminal only). @param {string} prompt */
  prompt(prompt) {
    this.basePrompt = prompt;
    this.promptShown = true;
    this.redraw();
  }

  redraw() {
    const rl = this.rl;
    if (rl === null) return;
    rl.setPrompt(this.partial + this.basePrompt);
    rl.prompt(true);
  }

  /** The user ended a line: what was on the prompt line stays as it is. */
  lineEntered() {
    this.promptShown = false;
    this.partial = '';
  }
}
