// @ts-check
/**
 * `termite-node repl`: an interactive Scheme REPL. Line editing and history come from
 * node:readline; an input that is not yet complete (an open list or string) continues
 * on the next line; each complete datum is expanded in the REPL's environment (which
 * remembers definitions, macros and imports), compiled and run as a process on a live
 * node (so it can spawn, send and receive). Errors are printed and the REPL goes on.
 * `,quit` or end of input leaves with status 0; `(exit code)` leaves with that code
 * (#t or no argument: 0, #f: 1), as `run` does.
 */
import readline from 'node:readline';
import { createNode, NodeEvaluator } from '@termite/runtime';
import { exitStatus } from './cli.js';

/**
 * @param {import('./cli.js').CliOptions} options
 * @param {{input?: NodeJS.ReadableStream, output?: NodeJS.WritableStream}} [io]
 * @returns {Promise<number>}
 */
export async function startRepl(options, io = {}) {
  const input = io.input ?? process.stdin;
  const output = io.output ?? process.stdout;
  const terminal = /** @type {any} */ (output).isTTY === true && /** @type {any} */ (input).isTTY === true;
  const node = await createNode({ stdout: (s) => output.write(s), log: (s) => process.stderr.write(`termite: ${s}\n`) });
  const evaluator = new NodeEvaluator(node, { libraryPath: options.lib });
  const rl = readline.createInterface({ input, output, terminal, historySize: 1000, prompt: 'termite> ' });
  let pending = '';
  let status = 0;
  output.write('Termite Scheme REPL. Type ,quit to leave.\n');
  rl.prompt();
  for await (const line of rl) {
    if (pending === '' && line.trim() === ',quit') break;
    pending += line + '\n';
    const result = await evaluator.evalText(pending);
    if (result.incomplete) {
      rl.setPrompt('....... ');
      rl.prompt();
      continue;
    }
    pending = '';
    for (const text of result.outputs) output.write(text.endsWith('\n') ? text : text + '\n');
    if (result.exited !== undefined) {
      status = exitStatus(result.exited);
      break;
    }
    rl.setPrompt('termite> ');
    rl.prompt();
  }
  rl.close();
  node.stop();
  output.write('\n');
  return status;
}
