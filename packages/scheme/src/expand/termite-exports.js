// @ts-check
/**
 * Exports of the `(termite)` library (the Termite API of DESIGN.md §3).
 * `procedures` live in the runtime namespace 'rt' under the same name;
 * `syntax` are special forms implemented by the expander.
 * Programs without an `import` form get this library as well as the R7RS ones.
 */
export const termiteExports = {
  syntax: ['recv', 'match', 'catch', 'handle'],
  procedures: [
    // processes
    'spawn', 'spawn-link', 'self', '!', '?', '??', '!?', 'make-tag', 'tag?', 'pid?',
    'link', 'unlink', 'outbound-link', 'inbound-link', 'full-link', 'process-alive?', 'terminate!',
    'sleep',
    // nodes
    'current-node', 'make-node', 'node?', 'pid-node', 'migrate', 'remote-spawn',
    'remote-spawn-link', 'on', 'publish-service', 'remote-service', 'node-id', 'mesh-nodes',
    'node-load', 'node-kind', 'remote-space', 'space-node',
    // behaviours
    'spawn-thunk-supervised', 'make-generic-server-plugin', 'generic-server-start-link',
    'generic-server-start', 'generic-server-call', 'generic-server-cast',
    // Linda
    'out', 'in', 'rd', 'inp', 'rdp', 'in-timeout', 'rd-timeout', 'tuple-count', 'spawn-tuple',
    'make-space', 'space?', 'default-space', 'formal', 'formal?', 'in-async', 'rd-async', 'async-poll',
    'async-collect', 'async-cancel', '?any', '?integer', '?number', '?float', '?string', '?symbol', '?bytes',
    '?boolean', '?vector', '?null', '?list',
    // sorting (SRFI 132 argument order), records
    'list-sort', 'vector-sort', 'sort', 'record?',
    // misc
    'print', 'println', 'timeout?', 'error-object-who',
  ],
};
