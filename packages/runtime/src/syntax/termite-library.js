// @ts-check
/**
 * The (termite) library's exports that the runtime defines: the special forms (recv,
 * match, catch, handle: termite-forms.js) and the names of the Termite API's procedures
 * (processes, nodes, behaviours, Linda: docs/scheme.md, "The (termite) library").
 *
 * The language declares (termite) with what it defines itself (list-sort, vector-sort,
 * sort, record?, error-object-who: @termite/scheme expand/stdlib.js); defineTermiteLibrary
 * adds the rest through the expander's extension point. It must run before any program
 * is expanded (loadTermiteLibrary does it first), and may run again (it is idempotent).
 * Programs without an `import` form get (termite), as they get the R7RS libraries.
 *
 * A name listed here must be defined in 'rt' by the time a program using it runs: by a
 * primitive (prims-*.js) or by the runtime's Scheme (scheme-sources/*.scm).
 */
import { expander } from '@termite/scheme/internal';
import { termiteForms } from './termite-forms.js';

/** The procedures of the Termite API, in the groups of docs/scheme.md. */
export const TERMITE_PROCEDURES = [
  // processes
  'spawn', 'spawn-link', 'self', '!', '?', '??', '!?', 'make-tag', 'tag?', 'pid?',
  'link', 'unlink', 'outbound-link', 'inbound-link', 'full-link', 'process-alive?', 'terminate!',
  'sleep',
  // nodes
  'current-node', 'make-node', 'node?', 'pid-node', 'migrate', 'remote-spawn',
  'remote-spawn-link', 'on', 'publish-service', 'remote-service', 'node-id', 'mesh-nodes',
  'node-load', 'node-kind', 'remote-space', 'space-node', 'space-home', 'space-kind', 'space-count', 'space-bridge', 'with-qos',
  // behaviours
  'spawn-thunk-supervised', 'make-generic-server-plugin', 'generic-server-start-link',
  'generic-server-start', 'generic-server-call', 'generic-server-cast',
  // Linda
  'out', 'in', 'rd', 'inp', 'rdp', 'in-timeout', 'rd-timeout', 'tuple-count', 'spawn-tuple',
  'make-space', 'space?', 'default-space', 'formal', 'formal?', 'in-async', 'rd-async', 'async-poll',
  'async-collect', 'async-cancel', '?any', '?integer', '?number', '?float', '?string', '?symbol', '?bytes',
  '?boolean', '?vector', '?null', '?list',
  // misc
  'print', 'println', 'timeout?',
];

/** Add the Termite API to (termite). Idempotent. */
export function defineTermiteLibrary() {
  expander.defineHostLibrary('(termite)', { syntax: termiteForms, procedures: TERMITE_PROCEDURES, defaultImport: true });
}
