// @ts-check
/**
 * Snapshots of a running Scheme thread: its continuation, dynamic state and pending
 * action, plus the global definitions of the environment it runs in, as one CBOR value.
 * A snapshot taken between two time slices can be restored in another JS realm —
 * another Node process, a browser tab — that has the code (or can fetch it by hash),
 * and resumed there to the same result. Migration (the mesh) ships the same data.
 *
 * Snapshot layout (a vector):
 *   #(1 env-id #((name value) ...) act closure args value frames winders handlers params)
 */
import { Thread, ACT_CALL, ACT_RETURN } from './engine/driver.js';
import { encodeValue, decodeValue, CodecError } from './codec/index.js';
import { builtinUnit, runtimeUnits } from './engine/boot.js';
import { Unbound } from './engine/engine.js';

export const SNAPSHOT_VERSION = 1;

/**
 * @param {Thread} th a thread between slices (not running)
 * @param {import('./engine/linker.js').Environment|null} env the environment whose globals travel with it
 * @returns {Uint8Array}
 */
export function snapshotThread(th, env) {
  return encodeValue(threadToData(th, env));
}

/**
 * The thread (and its environment's globals) as Scheme data.
 * @param {Thread} th @param {import('./engine/linker.js').Environment|null} env
 */
export function threadToData(th, env) {
  const globals = [];
  if (env) {
    for (const [name, cell] of env.cells) {
      if (!(cell.v instanceof Unbound)) globals.push([name, cell.v]);
    }
  }
  return [
    SNAPSHOT_VERSION,
    env ? env.id : false,
    globals,
    th.act,
    th.act === ACT_CALL ? th.clo : false,
    th.act === ACT_CALL ? th.args : false,
    th.act === ACT_RETURN ? th.val : false,
    th.k,
    th.winders,
    th.handlers,
    th.params,
  ];
}

/**
 * Rebuild a thread from a snapshot. `resolveCode(hash, envId)` must return the unit
 * instance (with `lams`) for every unit the snapshot refers to other than the
 * runtime's own (builtins and prelude, resolved here). The environment's globals are
 * written into `env` (whose id should be the snapshot's).
 * @param {Uint8Array} bytes
 * @param {{resolveCode: (hash: string, env: string) => any, env: import('./engine/linker.js').Environment|null}} opts
 * @returns {Thread}
 */
export function restoreThread(bytes, opts) {
  const data = decodeValue(bytes, { resolveCode: (hash, envId) => resolveRuntimeCode(hash, envId) ?? opts.resolveCode(hash, envId) });
  return threadFromData(data, opts.env);
}

/**
 * @param {any} data @param {import('./engine/linker.js').Environment|null} env
 * @returns {Thread}
 */
export function threadFromData(data, env) {
  if (!Array.isArray(data) || data.length !== 11 || data[0] !== SNAPSHOT_VERSION) throw new CodecError('not a thread snapshot');
  const [, , globals, act, clo, args, val, k, winders, handlers, params] = data;
  if (env) for (const [name, value] of globals) env.cell(name).v = value;
  const th = new Thread(act === ACT_CALL ? clo : null, act === ACT_CALL ? args : null);
  th.act = act;
  th.val = act === ACT_RETURN ? val : null;
  th.k = k;
  th.winders = winders;
  th.handlers = handlers;
  th.params = params;
  return th;
}

/**
 * The runtime's own code: builtins and the prelude.
 * @param {string} hash @param {string} _env
 */
export function resolveRuntimeCode(hash, _env) {
  if (hash === builtinUnit.hash) return builtinUnit;
  return runtimeUnits.get(hash) ?? null;
}
