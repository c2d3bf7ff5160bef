// @ts-check
/**
 * A hand-driven Termite peer for hostile-input tests: a real @termite/mesh node admitted
 * to a daemon with its token, that sends whatever bytes a test builds (frames and
 * requests of packages/runtime/src/distribution/frame-vocabulary.js, or garbage), answers the daemon's
 * CODE and ENV requests from a table the test fills (so it can serve IR of its choosing
 * under any hash), and records what the daemon sends back. Waits are bounded.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMeshNode, createIdentity, createMemoryLogger } from '@termite/mesh';
import { encodeValue, decodeValue } from '@termite/scheme/internal';
import { compileProgramText, linkProgram, wireToData, wireFromData, hashWire, Closure } from '@termite/scheme';
import { loadTermiteLibrary } from '@termite/runtime';

loadTermiteLibrary(); // the value codecs of pids, nodes, tags; the runtime units' code

export const F = { SEND: 1, SIGNAL: 2, LINK: 3, UNLINK: 4, KILL: 5, MOVED: 6, GONE: 7, ERROR: 8, EXITED: 9, AS: 10 };
export const R = { SPAWN: 20, MIGRATE: 21, CODE: 22, ENV: 23, SERVICE: 24, STATS: 25, AS: 27, LIB: 28, WHERE: 29, VOUCH: 36 };

/**
 * Await `p` for at most `ms`.
 * @template T @param {Promise<T>} p @param {number} ms @param {string} what @returns {Promise<T>}
 */
export function within(p, ms, what) {
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let t;
  return Promise.race([p, new Promise((_, reject) => { t = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms); })])
    .finally(() => clearTimeout(t));
}

/**
 * A closure as the wire names it: code (unit hash, environment id), lambda index, free
 * values. The receiver resolves the code; nothing here needs to be runnable.
 * @param {string} hash @param {string} env @param {number|string} index @param {any[]} [fv]
 */
export function closureRef(hash, env, index, fv = []) {
  return new Closure(() => {}, /** @type {any} */ ({ index, unit: { hash, env: { id: env } } }), fv);
}

/**
 * Compile Scheme text here and return its unit's shippable data (what a CODE answer
 * carries) and hash. `variant(data)` may change the data first; the hash is then that
 * of the changed IR, as an honest sender would compute it.
 * @param {string} text @param {(data: any[]) => void} [variant]
 */
export function unitOf(text, variant) {
  const prog = linkProgram(compileProgramText(text));
  const copy = (/** @type {any} */ x) => (Array.isArray(x) ? x.map(copy) : x); // keeps symbols, characters, ...
  const data = copy(wireToData(prog.wire));
  if (variant) variant(data);
  return { data, hash: hashWire(wireFromData(data, 'hostile')), lambdas: prog.wire.lambdas };
}

/**
 * The hostile peer's answer to a request of the daemon (recorded in `asked`): the units
 * it serves for CODE, the library records it serves for LIB, an empty environment for
 * ENV, a refusal for anything else.
 * @param {Map<string, any[]>} units @param {Map<string, any[]>} libs @param {any[]} asked @param {Uint8Array} bytes
 */
function answerRequest(units, libs, asked, bytes) {
  const req = decodeValue(bytes);
  asked.push(req);
  if (req[0] === R.CODE) {
    const shipped = units.get(String(req[1]));
    return encodeValue(shipped ? [true, shipped, []] : [false, `this peer does not have unit ${String(req[1]).slice(0, 16)}`, []]);
  }
  if (req[0] === R.ENV) return encodeValue([true, [0, []], []]);
  if (req[0] === R.LIB && libs.has(String(req[1]))) return encodeValue([true, libs.get(String(req[1])), []]);
  return encodeValue([false, `request ${req[0]} is not served here`, []]);
}

/**
 * Record a received frame; a DTS batch (34, 11) as the messages it carries, in order (the
 * batch itself kept in dtsBatches).
 * @param {any[]} frames @param {any[]} dtsBatches @param {any} f
 */
function record(frames, dtsBatches, f) {
  if (!(Array.isArray(f) && f[0] === 34 && f[1] === 11 && Array.isArray(f[3]))) return void frames.push(f);
  dtsBatches.push(f);
  for (const m of f[3]) frames.push([34, ...m, f[4]]);
}

/**
 * @param {{url: string, id: string}} daemon @param {string} token
 * @param {Record<string, any>} [init] more createMeshNode options (limits)
 */
export async function hostilePeer(daemon, token, init = {}) {
  const logger = createMemoryLogger();
  const mesh = createMeshNode({ identity: await createIdentity(), token, logger, ...init });
  /** @type {Map<string, any[]>} hash → [name, data, debug] served to CODE requests */
  const units = new Map();
  /** @type {any[]} requests the daemon made, decoded */
  const asked = [];
  /** @type {any[]} frames the daemon sent, decoded */
  const frames = [];
  /** @type {any[]} DTS batch frames the daemon sent (their messages are in frames too) */
  const dtsBatches = [];
  /** @type {Array<{id: string, name: string, message: string}>} mesh ERROR frames */
  const meshErrors = [];
  /** @type {Array<() => void>} */
  let wake = [];
  const notify = () => { for (const w of wake.splice(0)) w(); };
  mesh.onMessage((from, payload) => {
    if (from !== daemon.id) return;
    let f;
    try {
      f = decodeValue(payload, { resolveCode: () => ({ lams: [], lamsByName: new Map() }) });
    } catch (e) {
      f = ['undecodable', String(e)];
    }
    record(frames, dtsBatches, f);
    notify();
  });
  mesh.on('peer:error', (e) => {
    meshErrors.push(e);
    notify();
  });
  /** @type {Map<string, any[]>} library key → record data served to LIB requests */
  const libs = new Map();
  mesh.onRequest((from, bytes) => answerRequest(units, libs, asked, bytes));
  await mesh.start();
  await mesh.connect(daemon.url);

  /** Wait until a recorded item satisfies `pred`. @template T @param {T[]} list @param {(x: T) => boolean} pred @param {string} what */
  async function waitIn(list, pred, what, ms = 10_000) {
    const until = Date.now() + ms;
    for (;;) {
      const hit = list.find(pred);
      if (hit !== undefined) return hit;
      const left = until - Date.now();
      if (left <= 0) throw new Error(`${what}: not within ${ms} ms`);
      await within(new Promise((r) => wake.push(() => r(undefined))), left, what);
    }
  }

  return {
    mesh, id: mesh.id, units, libs, asked, frames, dtsBatches, meshErrors, logs: logger.entries,
    /** Send bytes, or a value to encode, as a one-way Termite frame. @param {any} v */
    send(v) {
      if (!mesh.send(daemon.id, v instanceof Uint8Array ? v : encodeValue(v))) throw new Error('the mesh refused to send');
    },
    /**
     * Send a request; resolves with the daemon's decoded answer [ok, value-or-message, envs].
     * @param {any} v bytes, or a value to encode @param {number} [ms]
     */
    async request(v, ms = 10_000) {
      const bytes = await mesh.request(daemon.id, v instanceof Uint8Array ? v : encodeValue(v), { timeoutMs: ms });
      return decodeValue(bytes, { resolveCode: () => ({ lams: [], lamsByName: new Map() }) });
    },
    /** The daemon's next ERROR frame whose message matches. @param {RegExp} re */
    errorFrame(re) {
      return waitIn(frames, (f) => Array.isArray(f) && f[0] === F.ERROR && re.test(String(f[1])), `an ERROR frame matching ${re}`);
    },
    /** A frame satisfying pred. @param {(f: any) => boolean} pred @param {string} what */
    frame(pred, what) {
      return waitIn(frames, pred, what);
    },
    /** A mesh-level ERROR from the daemon with this name. @param {string} name */
    meshError(name) {
      return waitIn(meshErrors, (e) => e.name === name, `a mesh ERROR ${name}`);
    },
    stop: () => mesh.stop(),
  };
}

/**
 * Send one oversized payload (`bytes` long) to the daemon from a peer in a child process
 * (so the burst does not stall this process's own peers), allowed to send more than the
 * daemon accepts. Resolves with the mesh ERROR the daemon answered and the sender's id.
 * @param {{url: string, id: string}} daemon @param {string} token @param {number} bytes
 * @returns {Promise<{id: string, name: string, message: string}>}
 */
export function oversizedFrom(daemon, token, bytes) {
  const script = `
    import { createMeshNode, createIdentity, createMemoryLogger } from '@termite/mesh';
    const [url, id, token, size] = process.argv.slice(1);
    const mesh = createMeshNode({ identity: await createIdentity(), token, logger: createMemoryLogger(),
      maxFrameBytes: 2 * Number(size), maxQueueBytes: 2 * Number(size) });
    await mesh.start();
    await mesh.connect(url);
    const refused = new Promise((resolve) => mesh.on('peer:error', (e) => resolve(e)));
    if (!mesh.send(id, new Uint8Array(Number(size)))) throw new Error('not sent');
    const e = await refused;
    process.stdout.write(JSON.stringify({ id: mesh.id, name: e.name, message: e.message }));
    await mesh.stop();
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script, daemon.url, daemon.id, token, String(bytes)], {
    cwd: path.dirname(fileURLToPath(import.meta.url)), stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (b) => (out += b));
  child.stderr.on('data', (b) => (err += b));
  return within(new Promise((resolve, reject) => {
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`oversized sender exited ${code}: ${err}`))));
  }), 20_000, 'the oversized sender').finally(() => { if (child.exitCode === null) child.kill('SIGKILL'); });
}
