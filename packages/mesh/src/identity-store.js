// @ts-check
/**
 * Persistent identity in Node: `<dataDir>/identity.json`, mode 0600, in a
 * directory created with mode 0700.
 *
 * File format (JSON): `{"format": "termite-mesh identity", "version": 1,
 * "id": "<node id>", "privateKey": <Ed25519 private JWK>}`. The id is
 * re-derived from the key on load and must match (a hand-edited or corrupted
 * file is refused, never silently replaced).
 *
 * Invariants: a file readable by group or others is refused (as ssh refuses a
 * world-readable key); the file is written to a temporary name with mode 0600
 * and linked into place, so a crash never leaves a half-written identity and
 * two processes creating one at the same time agree on the winner's.
 */
import { mkdir, readFile, writeFile, link, unlink, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createIdentity, exportIdentity, importIdentity } from './identity.js';
import { IdentityError } from './errors.js';
import { hex, randomBytes } from './bytes.js';

export const IDENTITY_FILE = 'identity.json';

/**
 * Load the identity kept under `dataDir`, or create and persist a new one.
 * @param {string} dataDir
 * @returns {Promise<import('./identity.js').Identity>}
 */
export async function loadOrCreateIdentity(dataDir) {
  const file = join(dataDir, IDENTITY_FILE);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const existing = await load(file);
  if (existing) return existing;
  const identity = await createIdentity({ extractable: true });
  const body = JSON.stringify({ format: 'termite-mesh identity', version: 1, id: identity.id, privateKey: await exportIdentity(identity) }, null, 2) + '\n';
  const tmp = `${file}.${hex(randomBytes(6))}.tmp`;
  await writeFile(tmp, body, { mode: 0o600, flag: 'wx' });
  try {
    await link(tmp, file); // fails with EEXIST if another process won the race
  } catch (e) {
    if (/** @type {NodeJS.ErrnoException} */ (e).code !== 'EEXIST') throw new IdentityError(`cannot write ${file}: ${/** @type {Error} */ (e).message}`, { cause: e });
    const winner = await load(file);
    if (winner) return winner;
    throw new IdentityError(`${file} appeared while creating it but cannot be read`);
  } finally {
    await unlink(tmp).catch(() => {});
  }
  return identity;
}

/** @param {string} file */
async function load(file) {
  let st;
  try {
    st = await stat(file);
  } catch (e) {
    if (/** @type {NodeJS.ErrnoException} */ (e).code === 'ENOENT') return null;
    throw new IdentityError(`cannot read ${file}: ${/** @type {Error} */ (e).message}`, { cause: e });
  }
  if ((st.mode & 0o077) !== 0) {
    throw new IdentityError(`${file} is readable by others (mode ${(st.mode & 0o777).toString(8)}); run chmod 600 on it`);
  }
  let doc;
  try {
    doc = JSON.parse(await readFile(file, 'utf8'));
  } catch (e) {
    throw new IdentityError(`${file} is not valid JSON: ${/** @type {Error} */ (e).message}`, { cause: e });
  }
  if (doc?.format !== 'termite-mesh identity' || doc.version !== 1) {
    throw new IdentityError(`${file} is not a termite-mesh identity file (format ${JSON.stringify(doc?.format)}, version ${JSON.stringify(doc?.version)})`);
  }
  const identity = await importIdentity(doc.privateKey);
  if (identity.id !== doc.id) throw new IdentityError(`${file} names node ${doc.id} but its key is node ${identity.id}`);
  return identity;
}
