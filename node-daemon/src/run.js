// @ts-check
/**
 * `termite-node run FILE.scm`: start a node, compile the program (and the libraries it
 * imports, found next to it or under --lib), run its top level as the node's main
 * process, print what it displays to stdout, and exit 0 as soon as the main process
 * returns — even if other processes are still running — or 1 with a readable message
 * (what failed, which procedure, where, and the Scheme frames that led there) on stderr
 * if it raises an uncaught exception.
 * The death of any other process does not change the exit status. `(exit code)` exits
 * with that code (#t or no argument: 0, #f: 1). A --join that fails (no token, a wrong
 * token, an unreachable node: host.js says which) ends the run with status 1 before the
 * program starts, unless --continue-alone is given.
 *
 * Standard input is the program's console input port: `read`, `read-line`, `read-char`
 * ... take what has arrived, and a process that needs more waits for it (suspended, so
 * the node's other processes run). Standard input is read only once a program asks
 * for more than has arrived, and no longer once the main process has returned.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createNode, loadTermiteLibrary } from '@termite/runtime';
import { consoleSinks, SchemeError, formatBacktrace } from '@termite/scheme';
import { R, unwind, PEND_SUSPEND, attachConsoleInput, detachConsoleInput } from '@termite/scheme/internal';
import { BufferedOutput } from './output.js';
import { exitStatus } from './cli.js';
import { runtimeCacheFile, offerCachedRuntime, saveRuntimeCache, offerUnitsBesideBundle, saveUnitsBesideBundle, offerGeneratedJs, saveGeneratedJs } from './runtime-cache.js';
import { useRuntimeCodeCache, runtimeLibraryLoaded, saveRuntimeCodeCache } from './runtime-code-cache.js';
import startupFiles from './run-bundle-load.cjs';

const { cpuMs } = startupFiles;

/**
 * @param {string} file
 * @param {import('./cli.js').CliOptions} options
 * @param {{generatedJs?: string, units?: string, jsCodeCache?: string, marks?: [string, number, number?][]}} [startup]
 *   generatedJs, units, jsCodeCache: when running from the start-up bundle (run-bundle.js),
 *   the files of the runtime library's generated JavaScript, of its units (compiled by
 *   this same code from the sources in the bundle) and of V8's code for that JavaScript,
 *   kept beside it; marks: the start-up's stages so far, when
 *   TERMITE_TRACE_STARTUP asks for them (printed on stderr at the end)
 * @returns {Promise<number>} exit status
 */
export async function runFile(file, options, startup = {}) {
  const marks = startup.marks;
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
  const caches = offerCaches(startup);
  marks?.push(['caches read', performance.now(), cpuMs()]);
  // a mesh node when asked for one (--port or --join), else a standalone node
  let host = null;
  try {
    if (options.port !== undefined || options.join.length > 0) {
      // the mesh, its transports and the HTTP server are loaded only for a mesh node:
      // a standalone program starts without them
      const { startHost } = await import('./host.js');
      host = await startHost({ host: options.host, port: options.port ?? 0, join: options.join, token: options.token, data: options.data, trust: options.trust, publisher: options.publisher, limits: options.limits, insecure: options.insecure, trustTabs: options.trustTabs, trustRoutedTabs: options.restrictRoutedTabs !== true, stdout: (s) => stdout.write(s), log });
    }
  } catch (e) {
    stderr.write(`termite-node: cannot start the node: ${e instanceof Error ? e.message : e}\n`);
    stderr.flush();
    return 1;
  }
  if (host && host.joinFailures.length > 0 && !options.continueAlone) {
    stderr.write('termite-node: not running the program: the mesh could not be joined (--continue-alone runs it anyway)\n');
    await host.stop();
    stderr.flush();
    return 1;
  }
  if (marks && !host) timeRuntimeLibrary(marks);
  const node = host ? host.node : await createNode({ stdout: (s) => stdout.write(s), log, limits: options.limits });
  caches.libraryLoaded();
  marks?.push(['node created', performance.now(), cpuMs()]);
  const stdin = consoleInput(node);
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
    marks?.push(['program compiled and run', performance.now(), cpuMs()]);
    if (!r.ok) {
      stderr.write(`Error: ${r.message}\n${formatBacktrace(r.backtrace ?? null)}`);
      return 1;
    }
    return exitStatus(r.exitCode);
  } finally {
    stdin.stop();
    if (host) await host.stop();
    else node.stop();
    clearInterval(flusher);
    caches.runEnded();
    if (marks) traceAtExit(marks);
    stdout.flush();
    stderr.flush();
  }
}

/**
 * Offer the runtime library compiled by an earlier run, if there is one (runtime-cache.js):
 * from the start-up bundle, the units, JavaScript and V8 code kept beside it
 * (runtime-code-cache.js), else the installation's units file.
 * @param {{generatedJs?: string, units?: string, jsCodeCache?: string}} startup
 * @returns {{libraryLoaded: () => void, runEnded: () => void}} call once the runtime
 *   library is loaded, and at the end of the run: they keep what was not offered
 */
function offerCaches(startup) {
  const cacheFile = runtimeCacheFile();
  const unitsBeside = cacheFile === null ? null : startup.units ?? null;
  const besideOffered = offerUnitsBesideBundle(unitsBeside) > 0;
  if (!besideOffered) offerCachedRuntime(cacheFile);
  const jsFile = cacheFile === null ? null : startup.generatedJs ?? null;
  offerGeneratedJs(jsFile);
  const codeFile = cacheFile === null ? null : startup.jsCodeCache ?? null;
  useRuntimeCodeCache(codeFile);
  return {
    libraryLoaded: () => {
      runtimeLibraryLoaded();
      saveRuntimeCache(cacheFile);
      saveUnitsBesideBundle(unitsBeside, besideOffered);
      saveGeneratedJs(jsFile);
    },
    // the code V8 compiled by the end: lazily compiled functions included
    runEnded: () => saveRuntimeCodeCache(codeFile),
  };
}

/** Load the runtime library apart, only to time it (createNode loads it first). @param {[string, number, number?][]} marks */
function timeRuntimeLibrary(marks) {
  loadTermiteLibrary();
  marks.push(['runtime library loaded', performance.now(), cpuMs()]);
}

/** Print the start-up's stages on stderr when the process exits. @param {[string, number, number?][]} marks */
function traceAtExit(marks) {
  marks.push(['node stopped', performance.now(), cpuMs()]);
  process.once('exit', () => process.stderr.write(startupTrace([...marks, ['exit', performance.now(), cpuMs()]])));
}

/**
 * The start-up's stages: when each ended, ms since the process started, and its share;
 * then the CPU time the process used in it (all threads; a figure the machine's load
 * changes less than the wall time), where the stage's mark has it.
 * @param {[string, number, number?][]} marks
 */
function startupTrace(marks) {
  return marks.map(([stage, t, cpu], i) => {
    const before = marks.slice(0, i).reverse().find((m) => m[2] !== undefined)?.[2] ?? 0;
    const cpuPart = cpu === undefined ? '' : `  cpu ${(cpu - before).toFixed(1)}`;
    return `;; start-up: ${stage.padEnd(32)} ${t.toFixed(1).padStart(7)} ms  (+${(t - (i > 0 ? marks[i - 1][1] : 0)).toFixed(1)})${cpuPart}\n`;
  }).join('');
}

/**
 * Standard input as the node's console input port. A process that must wait is blocked
 * like one waiting for a remote answer (blockExternal), and resumed with the datum,
 * line or character read, or with the read error raised in it.
 * @param {any} node
 */
function consoleInput(node) {
  let reading = false;
  const feed = attachConsoleInput({
    wait: () => {
      const proc = R.thread.owner;
      node.blockExternal(proc, { who: 'read' });
      const suspended = unwind(PEND_SUSPEND, proc.waiting);
      return [suspended, (/** @type {any} */ value, /** @type {any} */ error) => {
        node.resumeExternal(proc, error === null ? { value } : { raise: error instanceof SchemeError ? error.payload : error });
      }];
    },
    needInput: () => {
      reading = true;
      process.stdin.setEncoding('utf8');
      process.stdin.on('data', (/** @type {string} */ text) => feed.push(text));
      process.stdin.on('end', () => feed.end());
      process.stdin.on('error', () => feed.end());
    },
  });
  return {
    stop: () => {
      detachConsoleInput();
      if (reading) process.stdin.destroy();
    },
  };
}

/** @param {string} p */
function readIfExists(p) {
  try {
    return readFileSync(p, 'utf8');
  } catch {
    return null;
  }
}
