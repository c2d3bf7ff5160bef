// @ts-check
/**
 * @packageDocumentation
 * `termite-node` as a library: what the command line does, callable from a program.
 *
 * @example
 * ```js
 * import { startHost } from 'termite-node';
 * const host = await startHost({ host: '127.0.0.1', port: 0, join: [], token: undefined,
 *   data: undefined, stdout: (s) => process.stdout.write(s), log: console.error });
 * // host.url, host.port, host.token, host.identity.id, host.node (the runtime node)
 * await host.stop();
 * ```
 */
export { startHost, diskCodeCache } from './host.js';
export { startDaemon } from './daemon.js';
export { runFile } from './run.js';
export { startRepl } from './repl.js';
export { main, parseCommandLine, UsageError, USAGE } from './cli.js';
