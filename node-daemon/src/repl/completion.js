// @ts-check
/**
 * Tab completion at the REPL: the word before the cursor is completed from the names
 * the REPL's environment binds (what it imported and what was defined there), REPL
 * commands after a leading comma, and library names inside `(import …)`: the R7RS
 * libraries (their names are fixed by the report), (termite), and the libraries this
 * session has loaded.
 */

/** The libraries of R7RS (small), as `import` names them. */
export const R7RS_LIBRARIES = [
  '(scheme base)', '(scheme case-lambda)', '(scheme char)', '(scheme complex)', '(scheme cxr)', '(scheme eval)',
  '(scheme file)', '(scheme inexact)', '(scheme lazy)', '(scheme load)', '(scheme process-context)', '(scheme read)',
  '(scheme repl)', '(scheme time)', '(scheme write)', '(scheme r5rs)',
];

/** Characters that end a Scheme identifier. */
const DELIMITED = /[^\s()[\]'`,"]*$/;

/**
 * A readline completer.
 * @param {{globalNames: () => string[], loadedLibraries: () => string[]}} env
 * @param {string[]} commands REPL command names, with their comma
 * @returns {(line: string) => [string[], string]}
 */
export function makeCompleter(env, commands) {
  return (line) => {
    if (/^\s*,[\w-]*$/.test(line)) {
      const word = line.trim();
      return [commands.filter((c) => c.startsWith(word)), word];
    }
    const lib = /\(import\s+(?:[^]*\s)?(\([^()]*)$/.exec(line);
    if (lib) {
      const word = lib[1];
      const all = [...new Set([...R7RS_LIBRARIES, '(termite)', ...env.loadedLibraries()])];
      return [all.filter((n) => n.startsWith(word)).sort(), word];
    }
    const word = /** @type {RegExpExecArray} */ (DELIMITED.exec(line))[0];
    if (word === '') return [[], word];
    // names starting with % are the runtime's own, shown only when asked for
    const hits = env.globalNames().filter((n) => n.startsWith(word) && (word.startsWith('%') || !n.startsWith('%')));
    return [hits.sort(), word];
  };
}
