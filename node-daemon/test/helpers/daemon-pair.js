// @ts-check
/**
 * One set-up for the tests of tabs that reach a second daemon through their own
 * (restricted-routes, restricted-vouching, restricted-vouching-more): two real daemons A
 * and B, B joined to A and, unless told otherwise, letting pages of A's origin open its
 * mesh WebSocket (so a tab of A may link to B directly); tabs are Node mesh peers whose
 * upgrades carry A's `Origin`. If B fails to start, A is stopped.
 */
import { decodeValue } from '@termite/scheme';
import { startDaemon, waitFor } from './daemons.js';
import { hostilePeer } from './peer.js';

/**
 * Start A, then B joined to A.
 * @param {string} token @param {{allowOriginOfA?: boolean}} [opts]
 * @returns {Promise<{a: import('./daemons.js').Daemon, b: import('./daemons.js').Daemon, origin: string, tabOfA: () => ReturnType<typeof hostilePeer>}>}
 */
export async function startDaemonPair(token, opts = {}) {
  const a = await startDaemon({ token });
  const origin = `http://127.0.0.1:${a.port}`;
  let b;
  try {
    b = await startDaemon({ token, join: [a.url], args: opts.allowOriginOfA === false ? [] : ['--allow-origin', origin] });
  } catch (e) {
    await a.stop('SIGKILL');
    throw e;
  }
  return { a, b, origin, tabOfA: () => hostilePeer(a, token, { websocket: { origin } }) };
}

/**
 * The frames `who` gets from node `fromId`, decoded (a frame that does not decode is
 * kept as ['undecodable', reason]), in a list that grows as they come.
 * @param {Awaited<ReturnType<typeof hostilePeer>>} who @param {string} fromId @returns {any[]}
 */
export function framesFrom(who, fromId) {
  /** @type {any[]} */
  const into = [];
  who.mesh.onMessage((from, payload) => {
    if (from !== fromId) return;
    try {
      into.push(decodeValue(payload, { resolveCode: () => ({ lams: [], lamsByName: new Map() }) }));
    } catch (e) {
      into.push(['undecodable', String(e)]);
    }
  });
  return into;
}

/**
 * Wait (bounded) for a frame in `list` that `pred` accepts, and return it.
 * @param {any[]} list @param {(f: any) => boolean} pred @param {string} what @param {number} [ms]
 */
export async function frameIn(list, pred, what, ms = 10_000) {
  await waitFor(() => list.some(pred), ms, what);
  return list.find(pred);
}
