// @ts-check
/**
 * A daemon's versioned libraries on disk: what it needs to publish and install them
 * (the runtime's code-libraries/ does the rest).
 *
 *   <data>/libraries/        library sources this node publishes (like a --lib directory)
 *   <data>/installed/        one signed record per library installed from another node,
 *                            named by the SHA-256 of its key; the IR is in <data>/code
 *   <data>/trust             trusted publisher ids, one a line (# comments); read again
 *                            when a library of an untrusted publisher is asked for, and
 *                            appended to by `termite-node trust add` and the dashboard
 *   --publisher DIR          a publisher key kept apart from the node key (DIR/identity.json,
 *                            created if missing); by default the node key signs
 *
 * Publishing a directory: every `define-library` with a versioned name in its .sld files
 * (subdirectories included, at most MAX_FILES files) is compiled and loaded here, so
 * this node has its code and its signed record to give the nodes that receive code
 * using it. A file that does not compile is logged and skipped: the node still starts.
 *
 * Invariants: records are written to a temporary name and renamed (a crash leaves the
 * old record or none); a record read back goes through the same signature and policy
 * checks as one from a peer (it is only a cache).
 */
import { mkdir, readFile, writeFile, rename, readdir, appendFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import path from 'node:path';
import { loadOrCreateIdentity, verifySignature, nodeIdFromPublicKey, fromBase64url, base64url, isNodeId } from '@termite/mesh';
import { compileProgramText, linkProgram } from '@termite/scheme';
import { publishLibrary } from '@termite/runtime';

/** How many files one published directory may hold (a bound on start-up work). */
const MAX_FILES = 2000;

/** @param {string} key */
const fileOf = (key) => `${createHash('sha256').update(key).digest('hex')}.cbor`;

/**
 * The store of installed libraries' records in `dir`.
 * @param {string} dir @returns {import('@termite/runtime').LibraryStore}
 */
export function diskLibraryStore(dir) {
  let made = false;
  return {
    async get(key) {
      try {
        return new Uint8Array(await readFile(path.join(dir, fileOf(key))));
      } catch {
        return null;
      }
    },
    async put(key, bytes) {
      if (!made) {
        await mkdir(dir, { recursive: true });
        made = true;
      }
      const tmp = path.join(dir, `${fileOf(key)}.${randomBytes(4).toString('hex')}.tmp`);
      await writeFile(tmp, bytes);
      await rename(tmp, path.join(dir, fileOf(key)));
    },
  };
}

/**
 * Trusted publisher ids: --trust values (node ids, or base64url public keys) and the
 * trust file under --data. A malformed entry is an error naming it.
 * @param {string[]} given @param {string|undefined} data
 * @returns {Promise<string[]>}
 */
export async function trustedPublishers(given, data) {
  const entries = [...given];
  if (data) {
    let text = '';
    try {
      text = await readFile(path.join(data, 'trust'), 'utf8');
    } catch {
      // no trust file: only --trust and this node's own publisher key
    }
    for (const line of text.split('\n')) {
      const t = line.replace(/#.*/, '').trim();
      if (t) entries.push(t);
    }
  }
  return Promise.all(entries.map(publisherId));
}

/**
 * A publisher's id from a node id or a base64url public key; a malformed one is an error naming it.
 * @param {string} e
 */
export async function publisherId(e) {
  if (isNodeId(e)) return e;
  if (/^[A-Za-z0-9_-]{43}$/.test(e)) return nodeIdFromPublicKey(fromBase64url(e));
  throw new Error(`--trust expects a publisher's node id (32 characters a-z, 2-7) or its public key (43 characters base64url), got ${e}`);
}

/**
 * Add a publisher to DATA/trust (an operator's approval: `termite-node trust add`, the
 * dashboard's approve button). Returns its id; a publisher already there is not added twice.
 * @param {string} data @param {string} key a node id or public key @param {string} how who approved
 */
export async function addTrust(data, key, how) {
  const id = await publisherId(key);
  if ((await trustedPublishers([], data)).includes(id)) return id;
  await mkdir(data, { recursive: true });
  await appendFile(path.join(data, 'trust'), `${id}  # approved ${new Date().toISOString()} (${how})\n`, { mode: 0o600 });
  return id;
}

/**
 * The registry options of a daemon: who signs, whom it trusts, where records persist;
 * an install from an untrusted publisher looks at DATA/trust again (an operator may have
 * run `termite-node trust add`) and waits `approvalWaitMs` for an approval.
 * @param {{identity: any, data?: string, trust?: string[], publisher?: string, approvalWaitMs?: number}} opts
 * @returns {Promise<import('@termite/runtime').LibraryOptions>}
 */
export async function libraryOptions(opts) {
  const key = opts.publisher ? await loadOrCreateIdentity(opts.publisher) : opts.identity;
  const data = opts.data;
  return {
    publisher: { id: key.id, publicKey: base64url(key.publicKey), sign: (/** @type {Uint8Array} */ d) => key.sign(d) },
    trusted: await trustedPublishers(opts.trust ?? [], opts.data),
    verify: (pk, sig, data) => verifySignature(fromBase64url(pk), fromBase64url(sig), data),
    publisherIdOf: (pk) => nodeIdFromPublicKey(fromBase64url(pk)),
    store: opts.data ? diskLibraryStore(path.join(opts.data, 'installed')) : null,
    approvalWaitMs: opts.approvalWaitMs ?? 0,
    reloadTrusted: data ? () => trustedPublishers([], data) : undefined,
    persistTrust: data ? async (id) => void (await addTrust(data, id, 'the dashboard')) : undefined,
  };
}

/**
 * Load and publish every versioned library of `dirs`. Returns the keys published.
 * @param {any} node @param {string[]} dirs @param {(s: string) => void} log
 */
export async function publishDirectories(node, dirs, log) {
  /** @type {string[]} */
  const published = [];
  for (const dir of dirs) {
    for (const file of await sldFiles(dir)) {
      let text;
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        continue;
      }
      for (const m of text.matchAll(/\(define-library\s+(\([^()]*@[0-9.]+\))/g)) {
        try {
          const units = compileProgramText(`(import ${m[1]})`, { file: path.join(dir, 'publish.scm'), libraryPath: [dir, ...dirs], readFile: readIfExists });
          linkProgram(units, { onLibrary: (inst, u) => publishLibrary(node, inst, u) });
          published.push(m[1]);
        } catch (e) {
          log(`library ${m[1]} in ${file} not published: ${e instanceof Error ? e.message : e}`);
        }
      }
    }
  }
  return published;
}

/** @param {string} dir @returns {Promise<string[]>} */
async function sldFiles(dir) {
  /** @type {string[]} */
  const out = [];
  /** @type {string[]} */
  const todo = [dir];
  while (todo.length > 0 && out.length < MAX_FILES) {
    const d = /** @type {string} */ (todo.pop());
    let entries;
    try {
      entries = await readdir(d, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      if (e.isDirectory()) todo.push(path.join(d, e.name));
      else if (e.name.endsWith('.sld') && out.length < MAX_FILES) out.push(path.join(d, e.name));
    }
  }
  return out.sort();
}

/** @param {string} p */
function readIfExists(p) {
  try {
    return readFileSync(p, 'utf8');
  } catch {
    return null;
  }
}
