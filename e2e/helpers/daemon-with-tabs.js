// @ts-check
/**
 * The set-up most end-to-end tests share: one real daemon and Chromium started side by
 * side, N worker tabs opened on the daemon's /worker page and joined, and the daemon
 * seeing all of them as peers; and its tear-down, which keeps the tabs' and the
 * daemon's logs under e2e/artifacts/ before it stops Chromium and the daemon (by PID).
 *
 * Invariant: every wait is bounded (the tab join and the peer list, 30 s each); the
 * tear-down runs whatever part of the set-up got started and never throws on logs.
 */
import path from 'node:path';
import { writeFileSync } from 'node:fs';
import { startDaemon } from '../../node-daemon/test/helpers/daemons.js';
import { launchChromium } from './browser.js';
import { openTab, waitJoined, waitPeers, saveTabLogs, artifactsDir } from './mesh.js';

/**
 * @typedef {object} DaemonWithTabs
 * @property {import('../../node-daemon/test/helpers/daemons.js').Daemon} daemon
 * @property {import('./browser.js').Chromium} chromium
 * @property {import('playwright-core').BrowserContext} context
 * @property {import('./mesh.js').Tab[]} tabs
 */

/**
 * Start a daemon (with `daemonOptions`, as startDaemon takes them) and Chromium, open
 * `count` tabs and wait until each has joined and the daemon lists it (over `transport`
 * when given, e.g. 'webrtc'). If any of it fails, what started is stopped (its logs kept
 * under `name`) and the error thrown.
 * @param {string} name @param {number} count @param {Parameters<typeof startDaemon>[0]} daemonOptions
 * @param {{transport?: string}} [opts]
 * @returns {Promise<DaemonWithTabs>}
 */
export async function startDaemonWithTabs(name, count, daemonOptions, opts = {}) {
  const started = await Promise.allSettled([startDaemon(daemonOptions), launchChromium()]);
  const daemon = started[0].status === 'fulfilled' ? started[0].value : undefined;
  const chromium = started[1].status === 'fulfilled' ? started[1].value : undefined;
  /** @type {import('./mesh.js').Tab[]} */
  const tabs = [];
  try {
    for (const s of started) if (s.status === 'rejected') throw s.reason;
    const d = /** @type {NonNullable<typeof daemon>} */ (daemon);
    const context = await /** @type {NonNullable<typeof chromium>} */ (chromium).browser.newContext();
    tabs.push(...(await Promise.all(Array.from({ length: count }, () => openTab(context, d.port)))));
    const ids = await Promise.all(tabs.map((t) => waitJoined(t)));
    await waitPeers(d.url, ids, { ...(opts.transport ? { transport: opts.transport } : {}), timeoutMs: 30000 });
    return { daemon: d, chromium: /** @type {NonNullable<typeof chromium>} */ (chromium), context, tabs };
  } catch (e) {
    // the test's own tear-down never sees what did start: keep its logs and stop it here
    await stopDaemonWithTabs(name, { daemon, chromium, tabs });
    throw e;
  }
}

/**
 * Keep the logs of test `name` (each tab's and the daemon's), then close Chromium and
 * stop the daemon. Parts left undefined by a failed set-up are skipped.
 * @param {string} name @param {Partial<DaemonWithTabs>} setup
 */
export async function stopDaemonWithTabs(name, { daemon, chromium, tabs }) {
  await saveTabLogs(name, tabs ?? []).catch(() => {});
  if (daemon) writeFileSync(path.join(artifactsDir(), `${name}-daemon.log`), daemon.log());
  await chromium?.close();
  await daemon?.stop();
}
