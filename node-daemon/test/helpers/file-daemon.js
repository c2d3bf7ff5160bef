// @ts-check
/**
 * One daemon shared by the tests of a file: started (with a fresh token) before them,
 * stopped by PID (SIGKILL) after them — the set-up the attack tests that poll one
 * daemon's /health repeat (slowloris.test.js, health-gc.test.js).
 *
 * Invariant: `daemon` is set before the file's first test runs; the daemon is stopped
 * even when a test fails.
 */
import { before, after } from 'node:test';
import { startDaemon, newToken } from './daemons.js';

/**
 * Register the file's before/after hooks for one daemon; its handle is filled in before
 * the first test.
 * @param {Omit<Parameters<typeof startDaemon>[0], 'token'>} [opts] startDaemon's options but the token
 * @returns {{token: string, daemon: import('./daemons.js').Daemon}}
 */
export function fileDaemon(opts = {}) {
  const handle = { token: newToken(), daemon: /** @type {any} */ (null) };
  before(async () => {
    handle.daemon = await startDaemon({ ...opts, token: handle.token });
  });
  after(async () => {
    await handle.daemon?.stop('SIGKILL');
  });
  return handle;
}
