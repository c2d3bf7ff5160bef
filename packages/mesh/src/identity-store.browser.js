// @ts-check
/**
 * Persistent identity in browsers: IndexedDB database `termite-mesh`, object
 * store `identity`, one record per name (the `dataDir` argument plays the
 * role of the name, default `default`). Every tab is its own node, so two
 * tabs open at once must use different names (or an in-memory identity from
 * createIdentity()); one name = one node id. The private key is generated
 * non-extractable and stored as a CryptoKey (structured clone), so page
 * scripts can sign with it but can never read it out.
 */
import { createIdentity, identityFromKeys } from './identity.js';
import { IdentityError } from './errors.js';

const DB = 'termite-mesh';
const STORE = 'identity';

/** @returns {Promise<IDBDatabase>} */
function open() {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE);
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(new IdentityError(`cannot open IndexedDB ${DB}: ${req.error?.message}`));
  });
}

/**
 * @template T
 * @param {IDBDatabase} db @param {IDBTransactionMode} mode @param {(s: IDBObjectStore) => IDBRequest<T>} op
 * @returns {Promise<T>}
 */
function run(db, mode, op) {
  return new Promise((resolve, reject) => {
    const tx = db.transaction(STORE, mode);
    const req = op(tx.objectStore(STORE));
    tx.oncomplete = () => resolve(req.result);
    tx.onerror = () => reject(new IdentityError(`IndexedDB ${mode} failed: ${tx.error?.message}`));
  });
}

/**
 * Load the identity stored under `name`, or create and store a new one.
 * @param {string} [name]
 * @returns {Promise<import('./identity.js').Identity>}
 */
export async function loadOrCreateIdentity(name = 'default') {
  const db = await open();
  try {
    const rec = await run(db, 'readonly', (s) => s.get(name));
    if (rec && rec.privateKey && rec.publicKey) return await identityFromKeys(rec.privateKey, new Uint8Array(rec.publicKey));
    const identity = await createIdentity({ extractable: false });
    try {
      // add, not put: if another tab stored one meanwhile, keep theirs (one identity per name).
      await run(db, 'readwrite', (s) => s.add({ id: identity.id, publicKey: identity.publicKey, privateKey: identity.privateKey }, name));
      return identity;
    } catch {
      const won = await run(db, 'readonly', (s) => s.get(name));
      if (won && won.privateKey && won.publicKey) return await identityFromKeys(won.privateKey, new Uint8Array(won.publicKey));
      throw new IdentityError(`cannot store the identity ${name} in IndexedDB`);
    }
  } finally {
    db.close();
  }
}
