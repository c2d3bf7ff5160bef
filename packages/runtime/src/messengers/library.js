// @ts-check
/**
 * The (termite messengers) library's names (docs/messengers.md): procedures defined in
 * 'rt' by scheme-sources/messengers.scm (on the primitives of prims-messengers.js).
 * Programs without an `import` form get it, as they get (termite); a program's own
 * definition of one of these names shadows it.
 */
import { expander } from '@termite/scheme/internal';

export const MESSENGERS_PROCEDURES = [
  // navigation
  'create', 'hop', 'delete', 'inject', 'inject-and-wait', 'fork', 'duplicate',
  // network variables and the network
  'messenger?', 'current-lnode', 'lnode-name', 'last-link', 'last-weight', 'lnode-address?',
  'lnet-describe', 'lnet-root',
  // node variables, waits, mailboxes
  'node-ref', 'node-set!', 'node-update!', 'node-ref-at', 'wait-until', 'm-send', 'm-recv',
  // virtual time
  'virtual-time', 'sched-time-abs', 'sched-time-delta',
  // draining a physical node
  'drain-node',
];

/** Define (termite messengers). Idempotent. */
export function defineMessengersLibrary() {
  expander.defineHostLibrary('(termite messengers)', { procedures: MESSENGERS_PROCEDURES, defaultImport: true });
}
