// @ts-check
/**
 * `termite-node run FILE.scm`: start a node, compile the program (and the libraries it
 * imports, found next to it or under --lib), run its top level as the node's main
 * process, print what it displays to stdout, and exit 0 as soon as the main process
 * returns — even if other processes are still running — or 1 with a readable message
 * (what failed, which procedure, where, and the Scheme frames that led there) on stderr
 * if it raises an uncaught exception.
 * The death of any other process does not change the exit status. `(exit code)` exits
 * with that code (#t or no argument: 0, #f: 1).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createNode } from '@termite/runtime';
import { consoleSinks, formatBacktrace } from '@termite/scheme';
import { BufferedOutput } from './output.js';
import { startHost } from './host.js';
import { exitStatus } from './cli.js';

/**
 * @param {string} file
 * @param {import('./cli.js').CliOptions} options
 * @returns {Promise<number>} exit status
 */
export async function runFile(file, options) {
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    process.stderr.write(`termite-node: cannot read ${file}: ${/** @type {Error} */ (e).message}\n`);
    return 1;
  }
  const stdout = new BufferedOutput(1);
  const stderr = new BufferedOutput(2);
  const log = (/** @type {string} */ s) => stderr.write(`termite: ${s}\n`);
  // (current-error-port) writes straight to this process's stderr
  consoleSinks.stderr = (s) => stderr.write(s);
  // a mesh node when asked for one (--port or --join), else a standalone node
  let host = null;
  try {
    if (options.port !== undefined || options.join.length > 0) {
      host = await startHost({ host: options.host, port: options.port ?? 0, join: options.join, token: options.token, data: options.data, limits: options.limits, stdout: (s) => stdout.write(s), log });
    }
  } catch (e) {
    stderr.write(`termite-node: cannot start the node: ${e instanceof Error ? e.message : e}\n`);
    stderr.flush();
    return 1;
  }
  const node = host ? host.node : await createNode({ stdout: (s) => stdout.write(s), log, limits: options.limits });
  const flusher = setInterval(() => {
    stdout.flush();
    stderr.flush();
  }, 50);
  try {
    const trace = options.tracePass.includes('all') ? 'all' : options.tracePass;
    const r = await /** @type {any} */ (node).runProgram(text, {
      file,
      libraryPath: [path.dirname(path.resolve(file)), ...options.lib],
      readFile: readIfExists,
      trace,
      onTrace: (/** @type {string} */ pass, /** @type {string} */ ir) => stderr.write(`;; after ${pass}\n${ir}\n`),
      onTime: options.timePasses ? (/** @type {string} */ pass, /** @type {number} */ ms) => stderr.write(`;; ${pass}: ${ms.toFixed(2)} ms\n`) : undefined,
    });
    node.flushStdout();
    if (!r.ok) {
      stderr.write(`Error: ${r.message}\n${formatBacktrace(r.backtrace ?? null)}`);
      return 1;
    }
    return exitStatus(r.exitCode);
  } finally {
    if (host) await host.stop();
    else node.stop();
    clearInterval(flusher);
    stdout.flush();
    stderr.flush();
  }
}

/** @param {string} p */
function readIfExists(p) {
  try {
    return readFileSync(p, 'utf8');
  } catch {
    return null;
  }
}
