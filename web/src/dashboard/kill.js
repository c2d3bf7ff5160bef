// @ts-check
/**
 * The kill button of a process row (docs/dashboard.md, "Processes"): a first click
 * arms it ("kill?"), a second click within a few seconds sends POST /api/kill with the
 * dashboard secret; the row shows "killing…", then the error if the daemon refused.
 * A process is killed only by two clicks on its own row's button (confirm-button.js).
 */
import { confirmButtons } from './confirm-button.js';

const kill = confirmButtons({
  cls: 'kill',
  dataKey: 'pid',
  idle: '✕',
  armed: 'kill?',
  sending: 'killing…',
  idleTitle: (pid) => `terminate ${pid} (asks to confirm)`,
  armedTitle: (pid) => `click again to terminate ${pid}`,
  refused: 'not killed',
  url: '/api/kill',
  body: (pid, nodeId) => ({ pid, at: nodeId }),
});

/** Redraw the rows when a button's state changes. */
export const onKillChange = kill.onChange;

/** The button for the process `pid` (as the snapshot lists it) on the node `nodeId`. */
export const killButton = kill.button;
