// @ts-check
/**
 * The libraries of one node: those it publishes (compiled here from source, signed with
 * its publisher key) and those it installed from other nodes, each with its signed
 * record; who may publish here (the install policy); and the persistent store that lets
 * a restarted node find what it installed.
 *
 * A library's identity is its key "(foo bar)@1.2" (name and version) and the hash of
 * its content (its compiled unit's SHA-256, the hash code on demand already checks).
 * Its **record** is [key, unit hash, required library namespaces, publisher public key,
 * signature], the signature (Ed25519) over `signedBytes` — so a record names exactly
 * one content, and a publisher vouches for it. A node installs a library only when the
 * signature verifies and its publisher (the node id derived from the public key) is one
 * it trusts: its own publisher key, `--trust ID`, the trust file, or an operator's
 * approval (`trust`).
 *
 * Invariants:
 *  - a library without a version is never published or installed (it is local to its
 *    program): `versioned` says so, and the refusal names the rule;
 *  - a record is kept (memory and store) only after its signature was verified and its
 *    publisher trusted, and its unit's IR passed the hash and IR checks;
 *  - the store holds records only (small, signed); the IR is in the code cache;
 *  - crypto and persistence are given by the host (daemon or tab): this file knows
 *    neither the mesh nor the file system.
 */
import { encodeValue, decodeValue } from '@termite/scheme/internal';

/**
 * @typedef {object} LibraryRecord
 * @property {string} key          "(foo bar)@1.2"
 * @property {string} unit         the SHA-256 of the library unit's IR (hex)
 * @property {string[]} requires   namespaces of the libraries it needs, in load order
 * @property {string} publicKey    the publisher's Ed25519 public key (base64url)
 * @property {string} signature    Ed25519 signature of signedBytes (base64url)
 */

/**
 * @typedef {object} Publisher who signs the libraries this node compiles
 * @property {string} id            its id (node id derivation of its public key)
 * @property {string} publicKey     base64url
 * @property {(data: Uint8Array) => Promise<Uint8Array>} sign
 */

/**
 * @typedef {object} LibraryStore where installed libraries' records persist
 * @property {(key: string) => Promise<Uint8Array|null>} get
 * @property {(key: string, bytes: Uint8Array) => Promise<void>} put
 */

/**
 * @typedef {object} LibraryOptions what the host gives the registry
 * @property {Publisher|null} [publisher] signs this node's own libraries (none: it publishes nothing)
 * @property {Iterable<string>} [trusted] publisher ids whose libraries this node installs
 * @property {(publicKey: string, signature: string, data: Uint8Array) => Promise<boolean>} [verify]
 * @property {(publicKey: string) => Promise<string>} [publisherIdOf] the id of a public key
 * @property {LibraryStore|null} [store]
 * @property {number} [approvalWaitMs] how long an install from an untrusted publisher waits
 *   for an operator's approval before it is refused (default 0: refused at once, the
 *   publisher still listed as waiting for approval, so the next attempt succeeds once approved)
 * @property {() => Promise<Iterable<string>>} [reloadTrusted] the trusted ids as persisted now
 *   (a daemon's DATA/trust, which `termite-node trust add` writes while it runs)
 * @property {(id: string) => Promise<void>} [persistTrust] keep an operator's approval (DATA/trust)
 */

/** Publishers listed as waiting for approval at once (a bound on what peers make a node keep). */
const MAX_PENDING = 64;
/** Libraries listed per waiting publisher. */
const MAX_PENDING_LIBRARIES = 32;
/** How often a waiting install looks at the persisted trust again (ms). */
const TRUST_POLL_MS = 250;

/**
 * @typedef {object} PendingPublisher an untrusted publisher whose libraries were asked for
 * @property {Set<string>} libraries their keys (at most MAX_PENDING_LIBRARIES)
 * @property {number} since when it was first asked for (ms since the epoch)
 * @property {number} waiting installs waiting for its approval now
 * @property {Set<() => void>} wake the waiting installs' wake-ups
 */

/** Raised when a library may not be installed here (policy, signature, no version). */
export class LibraryRefused extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = 'LibraryRefused';
  }
}

/** Whether a key names a versioned library. @param {string} key */
export const versioned = (key) => /\)@\d[\d.]*$/.test(key);

/** "(foo bar)@1.2" → ["(foo bar)", "1.2"]. @param {string} key */
export function splitKey(key) {
  const at = key.lastIndexOf(')@');
  return at < 0 ? [key, ''] : [key.slice(0, at + 1), key.slice(at + 2)];
}

/** What a publisher signs. @param {string} key @param {string} unit @param {string[]} requires */
export function signedBytes(key, unit, requires) {
  return new TextEncoder().encode(`termite-mesh library\n${key}\n${unit}\n${requires.join('\n')}`);
}

/** A record as wire data (an answer to LIB, a store entry). @param {LibraryRecord} r */
export const recordData = (r) => [r.key, r.unit, r.requires.slice(), r.publicKey, r.signature];

/**
 * A record from wire data, shape-checked (not yet verified).
 * @param {any} d @returns {LibraryRecord}
 */
export function recordFromData(d) {
  const ok = Array.isArray(d) && d.length === 5 && d.every((x, i) => (i === 2 ? Array.isArray(x) && x.length <= 256 && x.every((y) => typeof y === 'string' && y.length <= 1024) : typeof x === 'string' && x.length <= 4096));
  if (!ok) throw new LibraryRefused('malformed library record');
  if (!/^[0-9a-f]{64}$/.test(d[1])) throw new LibraryRefused(`malformed library record for ${d[0]}: bad unit hash`);
  return { key: d[0], unit: d[1], requires: d[2], publicKey: d[3], signature: d[4] };
}

export class LibraryRegistry {
  /** @param {LibraryOptions} [opts] */
  constructor(opts = {}) {
    this.publisher = opts.publisher ?? null;
    /** @type {Set<string>} */
    this.trusted = new Set(opts.trusted ?? []);
    if (this.publisher) this.trusted.add(this.publisher.id);
    this.verifyFn = opts.verify ?? null;
    this.publisherIdOf = opts.publisherIdOf ?? null;
    this.store = opts.store ?? null;
    /** @type {Map<string, Promise<LibraryRecord>>} this node's libraries by key: published here or installed */
    this.records = new Map();
    /** @type {Map<string, {origin: 'published'|'installed'|'store', publisher: string, from: string|null, at: number, requires: string[], idle: number}>} */
    this.info = new Map();
    /** old library versions unloaded (library-unload.js) */
    this.unloaded = 0;
    /** @type {ReturnType<typeof setInterval>|null} the check for old versions to unload */
    this.unloadTimer = null;
    /** library records fetched from other nodes (a LIB request answered) */
    this.fetched = 0;
    this.approvalWaitMs = Math.max(0, opts.approvalWaitMs ?? 0);
    this.reloadTrusted = opts.reloadTrusted ?? null;
    this.persistTrust = opts.persistTrust ?? null;
    /** @type {Map<string, PendingPublisher>} untrusted publishers asked for, by id */
    this.pending = new Map();
    /** told when an install starts waiting for an approval (the host logs it) @type {(publisher: string, key: string) => void} */
    this.onWaiting = () => {};
  }

  /**
   * Publish a library this node compiled: sign its record (once per key and unit).
   * @param {string} key @param {string} unit @param {string[]} requires
   */
  publish(key, unit, requires) {
    if (!versioned(key) || this.publisher === null || this.records.has(key)) return;
    const pub = this.publisher;
    const rec = pub.sign(signedBytes(key, unit, requires)).then((sig) => ({ key, unit, requires: requires.slice(), publicKey: pub.publicKey, signature: b64(sig) }));
    rec.catch(() => this.records.delete(key));
    this.records.set(key, rec);
    this.info.set(key, { origin: 'published', publisher: pub.id, from: null, at: Date.now(), requires: requires.slice(), idle: 0 });
  }

  /** The record of a library this node has, or null. @param {string} key */
  record(key) {
    return this.records.get(key) ?? null;
  }

  /**
   * The record of an installed library kept in the store, or null.
   * @param {string} key @returns {Promise<LibraryRecord|null>}
   */
  async stored(key) {
    if (this.store === null) return null;
    const bytes = await this.store.get(key).catch(() => null);
    if (bytes === null) return null;
    try {
      return recordFromData(decodeValue(bytes));
    } catch {
      return null; // a damaged entry is fetched again, and checked as any other
    }
  }

  /**
   * Check a record against the install policy: a version, a valid signature, a trusted
   * publisher. Returns the publisher's id.
   * @param {LibraryRecord} r @param {string} wanted the key that was asked for
   */
  async admit(r, wanted) {
    const [name, version] = splitKey(wanted);
    if (r.key !== wanted) throw new LibraryRefused(`asked for library ${name} version ${version}, was given ${r.key}`);
    if (this.verifyFn === null || this.publisherIdOf === null) throw new LibraryRefused(`library ${name} version ${version}: this node installs no libraries from other nodes`);
    const publisher = await this.publisherIdOf(r.publicKey).catch(() => null);
    if (publisher === null) throw new LibraryRefused(`library ${name} version ${version}: malformed publisher key`);
    if (!(await this.verifyFn(r.publicKey, r.signature, signedBytes(r.key, r.unit, r.requires)))) {
      throw new LibraryRefused(`library ${name} version ${version}: the signature of publisher ${publisher} does not match its content (hash ${r.unit.slice(0, 16)})`);
    }
    if (!this.trusted.has(publisher) && !(await this.approval(publisher, wanted))) {
      throw new LibraryRefused(`library ${name} version ${version} is published by ${publisher}, whom this node does not trust (start it with --trust ${publisher} to install it, or approve the publisher: \`termite-node trust add ${publisher}\` or the dashboard's approve button)`);
    }
    return publisher;
  }

  /**
   * Whether untrusted `publisher` is trusted after all: in the persisted trust (read
   * again), or approved by an operator within approvalWaitMs. Until then it is listed as
   * waiting for approval (`pendingList`), with the library asked for.
   * @param {string} publisher @param {string} key
   */
  async approval(publisher, key) {
    if (await this.reloaded(publisher)) return true;
    let p = this.pending.get(publisher);
    if (p === undefined) {
      if (this.pending.size >= MAX_PENDING) this.pending.delete(/** @type {string} */ (this.pending.keys().next().value));
      p = { libraries: new Set(), since: Date.now(), waiting: 0, wake: new Set() };
      this.pending.set(publisher, p);
    }
    if (p.libraries.size < MAX_PENDING_LIBRARIES) p.libraries.add(key);
    if (this.approvalWaitMs === 0) return false;
    const entry = p;
    entry.waiting++;
    this.onWaiting(publisher, key);
    try {
      const end = Date.now() + this.approvalWaitMs;
      for (let i = 0; i < 1e6 && Date.now() < end; i++) {
        await new Promise((resolve) => {
          const done = () => {
            clearTimeout(timer);
            entry.wake.delete(done);
            resolve(undefined);
          };
          const timer = setTimeout(done, Math.min(TRUST_POLL_MS, Math.max(1, end - Date.now())));
          entry.wake.add(done);
        });
        if (this.trusted.has(publisher) || (await this.reloaded(publisher))) return true;
      }
      return false;
    } finally {
      entry.waiting--;
    }
  }

  /** Whether `publisher` is in the persisted trust, read again (the trusted set takes it). @param {string} publisher */
  async reloaded(publisher) {
    if (this.reloadTrusted !== null) {
      for (const id of await this.reloadTrusted().catch(() => [])) this.trusted.add(id);
    }
    if (!this.trusted.has(publisher)) return false;
    this.pending.delete(publisher);
    return true;
  }

  /**
   * Keep an installed library (its checks passed): in memory, and in the store.
   * @param {LibraryRecord} r @param {string} publisher @param {string|null} from @param {boolean} fromStore
   */
  async keep(r, publisher, from, fromStore) {
    this.records.set(r.key, Promise.resolve(r));
    this.info.set(r.key, { origin: fromStore ? 'store' : 'installed', publisher, from, at: Date.now(), requires: r.requires.slice(), idle: 0 });
    if (!fromStore && this.store !== null) await this.store.put(r.key, encodeValue(recordData(r))).catch(() => {});
  }

  /** Forget an unloaded library (its record stays in the store, if any). @param {string} key */
  forget(key) {
    this.records.delete(key);
    this.info.delete(key);
    this.unloaded++;
  }

  /** An operator's approval: trust this publisher from now on. @param {string} id */
  trust(id) {
    this.trusted.add(id);
    const p = this.pending.get(id);
    this.pending.delete(id);
    if (p !== undefined) for (const w of [...p.wake]) w();
  }

  /**
   * An operator's approval from the dashboard: trusted from now on, kept in the
   * persisted trust (DATA/trust), and the installs waiting for it go on.
   * @param {string} id
   */
  async approve(id) {
    if (this.persistTrust !== null && !this.trusted.has(id)) await this.persistTrust(id);
    this.trust(id);
  }

  /** The publishers waiting for approval, for the dashboard. */
  pendingList() {
    return [...this.pending].map(([publisher, p]) => ({ publisher, libraries: [...p.libraries], since: p.since, waiting: p.waiting }));
  }

  /**
   * The dashboard's view: each library, its version, where it came from, and (given
   * `users`, library-usage.js) how many live processes use it and the first of their pids.
   * @param {Map<string, {count: number, pids: string[]}>} [users] by library namespace
   */
  list(users) {
    return [...this.info].map(([key, i]) => {
      const [name, version] = splitKey(key);
      const u = users?.get(`lib:${key}`);
      return { name, version, origin: i.origin, publisher: i.publisher, from: i.from, users: u?.count ?? 0, pids: u?.pids ?? [] };
    });
  }
}

/**
 * A LibraryStore kept in a code cache (a tab's IndexedDB): each record under the
 * SHA-256 of "termite-mesh library " + key, a name no unit's hash can take.
 * @param {{get(hash: string): Promise<Uint8Array|null>, put(hash: string, bytes: Uint8Array): Promise<void>}} cache
 * @returns {LibraryStore}
 */
export function libraryStoreIn(cache) {
  const name = async (/** @type {string} */ key) => {
    const d = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`termite-mesh library ${key}`)));
    return Array.from(d, (x) => x.toString(16).padStart(2, '0')).join('');
  };
  return {
    get: async (key) => cache.get(await name(key)),
    put: async (key, bytes) => cache.put(await name(key), bytes),
  };
}

/** @param {Uint8Array} b */
function b64(b) {
  let s = '';
  for (const x of b) s += String.fromCharCode(x);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
