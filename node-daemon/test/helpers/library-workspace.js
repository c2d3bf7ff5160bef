// @ts-check
/**
 * The scratch set-up of the versioned-library tests: a temporary directory with a
 * library tree (`libs/`, the files given, by path under it), a publisher identity
 * (`publisher/`, made once per workspace) and the list of daemons the test started; at
 * the end of the test file every daemon listed is killed (SIGKILL, by PID) and the
 * directory removed.
 *
 * Invariant: call it at a test file's top level (it registers that file's `after`).
 */
import { after } from 'node:test';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadOrCreateIdentity } from '@termite/mesh';

/**
 * @param {string} prefix the temporary directory's name prefix
 * @param {Record<string, string>} files library sources by path under libs/ (e.g. 'foo/bar@1.0.sld')
 */
export async function libraryWorkspace(prefix, files) {
  const tmp = mkdtempSync(path.join(os.tmpdir(), prefix));
  /** @type {import('./daemons.js').Daemon[]} */
  const started = [];
  after(async () => {
    await Promise.all(started.map((d) => d.stop('SIGKILL')));
    rmSync(tmp, { recursive: true, force: true });
  });
  const libs = path.join(tmp, 'libs');
  for (const [file, source] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(libs, file)), { recursive: true });
    writeFileSync(path.join(libs, file), source);
  }
  mkdirSync(libs, { recursive: true });
  const publisherDir = path.join(tmp, 'publisher');
  const publisher = await loadOrCreateIdentity(publisherDir);
  /** The options of a program (or daemon) that publishes these libraries. */
  const publishing = ['--lib', libs, '--publisher', publisherDir];
  return { tmp, libs, publisherDir, publisher, started, publishing };
}
