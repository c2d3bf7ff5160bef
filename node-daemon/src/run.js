// @ts-check
/**
 * `termite-node run FILE.scm`: compile the program (and the libraries it imports, found
 * next to it or under --lib), run its top level as the node's main computation, print
 * what it displays to stdout, and exit 0 when it returns — or 1 with a readable message
 * (what failed, which procedure, where) on stderr if it raises an uncaught exception.
 * `(exit code)` exits with that code (#t or no argument: 0, #f: 1).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  boot, consoleSinks, compileProgramText, linkProgram, Thread, runSlice, describeError,
  SLICE_DONE, SLICE_DIED, SLICE_SUSPENDED, SchemeError,
} from '@termite/scheme';
import { BufferedOutput } from './output.js';

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
  boot();
  consoleSinks.stdout = (s) => stdout.write(s);
  consoleSinks.stderr = (s) => stderr.write(s);
  try {
    return runText(text, file, options, stdout);
  } finally {
    stdout.flush();
    stderr.flush();
  }
}

/**
 * @param {string} text @param {string} file @param {import('./cli.js').CliOptions} options
 * @param {BufferedOutput} stdout
 */
function runText(text, file, options, stdout) {
  const trace = options.tracePass.includes('all') ? 'all' : options.tracePass;
  let units;
  try {
    units = compileProgramText(text, {
      file,
      libraryPath: [path.dirname(path.resolve(file)), ...options.lib],
      readFile: readIfExists,
      trace,
      onTrace: (pass, ir) => process.stderr.write(`;; after ${pass}\n${ir}\n`),
      onTime: options.timePasses ? (pass, ms) => process.stderr.write(`;; ${pass}: ${ms.toFixed(2)} ms\n`) : undefined,
    });
  } catch (e) {
    if (e instanceof SchemeError) {
      process.stderr.write(`Error: ${describeError(e.payload)}\n`);
      return 1;
    }
    throw e;
  }
  const program = linkProgram(units);
  const th = new Thread(program.top, []);
  for (;;) {
    const r = runSlice(th, 200000);
    stdout.flush();
    if (r === SLICE_DONE) return exitStatus(/** @type {any} */ (th).exitCode);
    if (r === SLICE_DIED) {
      process.stderr.write(`Error: ${describeError(th.val)}\n`);
      return 1;
    }
    if (r === SLICE_SUSPENDED) {
      process.stderr.write('Error: the main program blocked and nothing can wake it\n');
      return 1;
    }
  }
}

/** @param {any} code */
function exitStatus(code) {
  if (code === undefined || code === true) return 0;
  if (code === false) return 1;
  if (typeof code === 'number' && Number.isInteger(code)) return code & 0xff;
  return 0;
}

/** @param {string} p */
function readIfExists(p) {
  try {
    return readFileSync(p, 'utf8');
  } catch {
    return null;
  }
}
