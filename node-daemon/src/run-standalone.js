// @ts-check
/**
 * The entry of the start-up bundle (run-bundle.js builds it, run-bundle-load.cjs loads
 * it): a standalone `termite-node run FILE` from the command line as given, parsed by the
 * command line's own parser, so a run from the bundle accepts exactly what cli.js does.
 * Anything else (another command, --port or --join, --help, a usage error) is left to
 * cli.js, which reports it as it always does.
 */
import { parseCommandLine } from './cli.js';
import { runFile } from './run.js';

export { runFile };

/**
 * Run the program if `argv` is a standalone run, else null.
 * @param {string[]} argv the command line after `termite-node`
 * @param {{generatedJs?: string, units?: string, jsCodeCache?: string, marks?: [string, number, number?][]}} startup as for runFile
 * @returns {Promise<number>|null} the exit status
 */
export function runStandalone(argv, startup) {
  let cmd;
  try {
    cmd = parseCommandLine(argv);
  } catch {
    return null; // cli.js reports it with the usage
  }
  if (cmd.command !== 'run' || cmd.file === null || cmd.options.port !== undefined || cmd.options.join.length > 0) return null;
  return runFile(cmd.file, cmd.options, startup);
}
