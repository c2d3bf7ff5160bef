// @ts-check
/**
 * `termite-node ps` and `termite-node kill PID`: a short-lived node joins the mesh
 * through --node URL (with --token, as any node must), lists the processes of the node
 * there or terminates one of them, and leaves. Exit status 0 when done; 1 when the
 * node cannot be joined (join-feedback.js says why) or there is no such process.
 */
import { startHost } from './host.js';
import { knownNodes, processesOf, formatProcesses, parsePid, killProcess } from './repl/processes.js';

/**
 * @param {'ps'|'kill'} command @param {string|null} pidText
 * @param {import('./cli.js').CliOptions} options
 * @returns {Promise<number>}
 */
export async function processCommand(command, pidText, options) {
  /** @type {string[]} */
  const logged = [];
  let host;
  try {
    host = await startHost({ host: '127.0.0.1', port: 0, join: [options.node], token: options.token, data: undefined, limits: options.limits, stdout: () => {}, log: (s) => logged.push(s) });
  } catch (e) {
    process.stderr.write(`termite-node: cannot start a node: ${e instanceof Error ? e.message : e}\n`);
    return 1;
  }
  try {
    if (host.joinFailures.length > 0 || host.joined.length === 0) {
      process.stderr.write(`termite-node: ${host.joinFailures[0]?.message ?? `cannot join ${options.node}`}\n`);
      return 1;
    }
    const target = host.joined[0].id;
    if (command === 'ps') {
      process.stdout.write(formatProcesses(await processesOf(host.node, host, target)) + '\n');
      return 0;
    }
    const pid = parsePid(/** @type {string} */ (pidText), knownNodes(host.node, host), target);
    process.stdout.write(await killProcess(host.node, host, pid) + '\n');
    return 0;
  } catch (e) {
    process.stderr.write(`termite-node: ${e instanceof Error ? e.message : e}\n`);
    return 1;
  } finally {
    await host.stop();
  }
}
