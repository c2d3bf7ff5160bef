// @ts-check
/**
 * The approve button of a library publisher waiting for approval (docs/dashboard.md,
 * "Libraries"): a first click arms it ("approve?"), a second click within a few seconds
 * sends POST /api/libraries/approve with the dashboard secret to the daemon serving this
 * page, which then trusts the publisher (kept in its DATA/trust) and lets the installs
 * waiting for it go on; the row shows the error if the daemon refused. The daemon
 * serving the page approves only for itself: another node's row shows its refusal.
 */
import { confirmButtons } from './confirm-button.js';

const approve = confirmButtons({
  cls: 'approve',
  dataKey: 'publisher',
  idle: 'approve',
  armed: 'approve?',
  sending: 'approving…',
  idleTitle: (publisher) => `trust publisher ${publisher} on this node (asks to confirm)`,
  armedTitle: (publisher) => `trust publisher ${publisher} on this node (asks to confirm)`,
  refused: 'not approved',
  url: '/api/libraries/approve',
  body: (publisher, nodeId) => ({ publisher, node: nodeId }),
});

/** Redraw the rows when a button's state changes. */
export const onApproveChange = approve.onChange;

/** The button approving `publisher` on the node `nodeId`. */
export const approveButton = approve.button;
