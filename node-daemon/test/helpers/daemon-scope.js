// @ts-check
/**
 * The daemons one test file starts, stopped by PID when the file ends (SIGCONT first:
 * a daemon a test stopped with SIGSTOP dies too), and its scratch folder, removed then.
 * One set-up in place of the same `started` / `after` / `daemon` block in each file.
 */
import { after } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startDaemon } from './daemons.js';

/** @typedef {import('./daemons.js').Daemon} Daemon */

/**
 * @param {string | null} [scratch] the prefix of a scratch folder to make in the system's
 *   temporary folder, or null for none
 * @returns {{daemon: (opts: Parameters<typeof startDaemon>[0]) => Promise<Daemon>, started: Daemon[], dir: string}}
 */
export function daemonScope(scratch = null) {
  /** @type {Daemon[]} */
  const started = [];
  const dir = scratch === null ? '' : mkdtempSync(path.join(os.tmpdir(), scratch));
  after(async () => {
    for (const d of started) d.child.kill('SIGCONT');
    await Promise.all(started.map((d) => d.stop('SIGKILL')));
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
  });
  /** @param {Parameters<typeof startDaemon>[0]} opts */
  const daemon = async (opts) => {
    const d = await startDaemon(opts);
    started.push(d);
    return d;
  };
  return { daemon, started, dir };
}
