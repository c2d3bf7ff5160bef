// @ts-check
/**
 * The tab's persistent code cache: the runtime's CodeCache ({get(hash), put(hash,
 * bytes)}, packages/runtime/src/distribution.js) in IndexedDB — database
 * `termite-code`, object store `units`, one record per unit keyed by its hash, holding
 * the unit's shipped IR (CBOR bytes) exactly as the peer sent it.
 *
 * What is cached is IR, never JavaScript: the runtime decodes a cached unit, checks it
 * against this node's allowed library and recomputes its hash exactly as it does for a
 * unit fetched from a peer, then compiles it here. So a cache another script of the
 * same origin tampered with can make a fetch fail, not make the tab run other code.
 *
 * Failures (no IndexedDB, quota, a private window) make the cache a no-op: get answers
 * null, put does nothing; the runtime then fetches from peers as usual.
 */

const DB = 'termite-code';
const STORE = 'units';
const HASH = /^[0-9a-f]{64}$/;

/** @returns {Promise<IDBDatabase | null>} */
function open() {
  return new Promise((resolve) => {
    let req;
    try {
      req = indexedDB.open(DB, 1);
    } catch {
      resolve(null);
      return;
    }
    req.onupgradeneeded = () => req.result.createObjectStore(STORE);
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => resolve(null);
    req.onblocked = () => resolve(null);
  });
}

/**
 * @param {{log?: (s: string) => void}} [opts]
 * @returns {{get(hash: string): Promise<Uint8Array | null>, put(hash: string, bytes: Uint8Array): Promise<void>, stats: {hits: number, misses: number, puts: number}}}
 */
export function indexedDbCodeCache(opts = {}) {
  /** @type {Promise<IDBDatabase | null> | null} */
  let db = null;
  const stats = { hits: 0, misses: 0, puts: 0 };
  const log = opts.log ?? (() => {});
  const database = () => (db ??= open().then((d) => {
    if (d === null) log('code cache: IndexedDB is not available; shipped code is not kept across visits');
    return d;
  }));
  return {
    stats,
    async get(hash) {
      if (!HASH.test(hash)) return null;
      const d = await database();
      if (d === null) return null;
      const bytes = await new Promise((resolve) => {
        try {
          const req = d.transaction(STORE, 'readonly').objectStore(STORE).get(hash);
          req.onsuccess = () => resolve(req.result instanceof Uint8Array ? req.result : req.result instanceof ArrayBuffer ? new Uint8Array(req.result) : null);
          req.onerror = () => resolve(null);
        } catch {
          resolve(null);
        }
      });
      if (bytes) stats.hits++;
      else stats.misses++;
      return bytes;
    },
    async put(hash, bytes) {
      if (!HASH.test(hash)) return;
      const d = await database();
      if (d === null) return;
      await new Promise((resolve) => {
        try {
          const tx = d.transaction(STORE, 'readwrite');
          tx.objectStore(STORE).put(bytes.slice(), hash);
          tx.oncomplete = () => resolve(undefined);
          tx.onerror = () => resolve(undefined);
          tx.onabort = () => resolve(undefined);
        } catch {
          resolve(undefined);
        }
      });
      stats.puts++;
    },
  };
}
