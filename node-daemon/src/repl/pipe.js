// @ts-check
/**
 * The REPL fed from a pipe or a file (`printf '(+ 1 2)\n' | termite-node repl`): no
 * banner and no prompts; every complete datum is evaluated in order and each result
 * printed on a line of its own; at the end of the input it waits for the last entry
 * and leaves with status 0 (or N after `(exit N)`, which ends it at once). An entry
 * left open at the end of the input is an error (status 1).
 */
import readline from 'node:readline';

/**
 * @param {import('./session.js').ReplSession} session
 * @param {NodeJS.ReadableStream} input
 * @returns {Promise<number>} the exit status
 */
export async function runPipe(session, input) {
  const rl = readline.createInterface({ input, terminal: false, crlfDelay: Infinity });
  let pending = '';
  try {
    for await (const line of rl) {
      pending += line + '\n';
      if (session.incomplete(pending)) continue;
      const entry = pending;
      pending = '';
      const r = await session.enter(entry);
      if (r.quit) return r.status ?? 0;
    }
  } finally {
    rl.close();
  }
  if (pending.trim() !== '') {
    session.out.result('Error: the input ended inside a datum (an open list or string)');
    return 1;
  }
  return 0;
}
