// @ts-check
/**
 * Which identity this tab uses. Every tab is its own node, and one identity must never
 * be used by two tabs at once (two nodes with one id would fight over their links). The
 * identities live in IndexedDB (packages/mesh's identity-store.browser.js, one record
 * per name, private key non-extractable) under the names `tab-0`, `tab-1`, ...; a tab
 * takes the first name whose Web Lock (`termite-identity:tab-N`) it can hold, and holds
 * it until it closes. So the first tab of a browser profile on a daemon's origin is the
 * same node every time it is opened, and tabs open at once are different nodes.
 *
 * Without Web Locks (not a secure context) or IndexedDB, the tab gets a fresh
 * in-memory identity: a new node id for every page load.
 */
import { loadOrCreateIdentity, createIdentity } from '@termite/mesh';

/** Slots tried before falling back to a fresh identity. */
export const MAX_SLOTS = 64;

/**
 * @param {{fresh?: boolean}} [opts] fresh: do not use a stored identity
 * @returns {Promise<{identity: import('@termite/mesh').Identity, slot: string | null}>}
 */
export async function tabIdentity(opts = {}) {
  const locks = /** @type {any} */ (globalThis.navigator)?.locks;
  if (opts.fresh || !locks || typeof indexedDB === 'undefined') return { identity: await createIdentity(), slot: null };
  for (let i = 0; i < MAX_SLOTS; i++) {
    const name = `tab-${i}`;
    const held = await holdLock(locks, `termite-identity:${name}`);
    if (!held) continue;
    try {
      return { identity: await loadOrCreateIdentity(name), slot: name };
    } catch {
      return { identity: await createIdentity(), slot: null };
    }
  }
  return { identity: await createIdentity(), slot: null };
}

/**
 * Take a lock if it is free and keep it for the life of this worker.
 * @param {any} locks @param {string} name
 * @returns {Promise<boolean>}
 */
function holdLock(locks, name) {
  return new Promise((resolve) => {
    locks.request(name, { ifAvailable: true }, (/** @type {any} */ lock) => {
      if (lock === null) {
        resolve(false);
        return undefined;
      }
      resolve(true);
      return new Promise(() => {}); // held until the worker ends
    }).catch(() => resolve(false));
  });
}
