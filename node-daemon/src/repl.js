// @ts-check
/**
 * `termite-node repl`: an interactive Scheme REPL on a live node (docs/repl.md). With
 * --join URL (and --token) or --port it is a node of the mesh like `run` and the
 * daemon are (a failed join ends it with status 1 unless --continue-alone); without,
 * a node of its own. To work on a running daemon, join its mesh: the daemon's
 * processes are then listed by `,ps HOST:PORT`, killed by `,kill`, reached by `on`.
 *
 * At a terminal the session is terminal.js's (editing, completion, history, Ctrl-C);
 * from a pipe it is pipe.js's (no prompts, one result a line). In both, every
 * process's output and the node's log lines go through one ConsoleOut, as they happen.
 */
import { createNode, NodeEvaluator, describeExit } from '@termite/runtime';
import { consoleSinks } from '@termite/scheme';
import { startHost } from './host.js';
import { ConsoleOut } from './repl/console-out.js';
import { ReplSession } from './repl/session.js';
import { runTerminal } from './repl/terminal.js';
import { runPipe } from './repl/pipe.js';

/**
 * @param {import('./cli.js').CliOptions} options
 * @param {{input?: NodeJS.ReadableStream, output?: NodeJS.WritableStream, errors?: NodeJS.WritableStream}} [io]
 * @returns {Promise<number>}
 */
export async function startRepl(options, io = {}) {
  const input = io.input ?? process.stdin;
  const output = io.output ?? process.stdout;
  const errors = io.errors ?? process.stderr;
  const terminal = /** @type {any} */ (output).isTTY === true && /** @type {any} */ (input).isTTY === true;
  const out = new ConsoleOut(output, terminal ? output : errors);
  const log = (/** @type {string} */ s) => out.log(`termite: ${s}`);
  consoleSinks.stderr = (s) => out.emit(terminal ? output : errors, s);
  let host = null;
  if (options.port !== undefined || options.join.length > 0) {
    try {
      host = await startHost({ host: options.host, port: options.port ?? 0, join: options.join, token: options.token, data: options.data, limits: options.limits, insecure: options.insecure, trustRoutedTabs: options.restrictRoutedTabs !== true, stdout: (s) => out.write(s), log });
    } catch (e) {
      errors.write(`termite-node: cannot start the node: ${e instanceof Error ? e.message : e}\n`);
      return 1;
    }
    if (host.joinFailures.length > 0 && !options.continueAlone) {
      errors.write('termite-node: the mesh could not be joined (--continue-alone starts the REPL anyway)\n');
      await host.stop();
      return 1;
    }
    // others join this node at host.url: they need the token it made up, if it did
    if (options.token === undefined) log(`listening on ${host.url.replace(/^http/, 'ws')}; mesh token (generated; pass --token to choose one): ${host.token}`);
  }
  const node = host ? host.node : await createNode({ stdout: (s) => out.write(s), log, limits: options.limits });
  const evaluator = new NodeEvaluator(node, {
    libraryPath: options.lib,
    outputPid: node.stdoutProcess.pid,
    // a linked process that dies is reported as erl's shell does; the session goes on
    onLinkedExit: (payload, from) => out.write(`${describeExit(payload, from)}\n`),
  });
  const session = new ReplSession({ node, host, evaluator, out });
  try {
    return terminal ? await runTerminal(session, input, output) : await runPipe(session, input);
  } finally {
    node.flushStdout();
    if (host) await host.stop();
    else node.stop();
  }
}
