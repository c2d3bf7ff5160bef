// @ts-check
/**
 * One set-up for the restricted-peer tests: a real daemon that names one peer restricted
 * (`--restricted-peer ID`), that peer (the "tab", driven by hand: helpers/peer.js) and an
 * unrestricted peer of the same daemon. If a step fails, what started is stopped.
 */
import { createIdentity } from '@termite/mesh';
import { startDaemon, newToken } from './daemons.js';
import { hostilePeer } from './peer.js';

/**
 * Start the daemon and its two peers; `stop` ends them all (the daemon by SIGKILL).
 * @returns {Promise<{d: import('./daemons.js').Daemon, tab: Awaited<ReturnType<typeof hostilePeer>>, peer: Awaited<ReturnType<typeof hostilePeer>>, stop: () => Promise<void>}>}
 */
export async function daemonWithRestrictedPeer() {
  const token = newToken();
  const identity = await createIdentity();
  const d = await startDaemon({ token, args: ['--restricted-peer', identity.id] });
  /** @type {Array<{stop: () => Promise<void>}>} */
  const peers = [];
  const stop = async () => {
    await Promise.all(peers.map((p) => p.stop()));
    await d.stop('SIGKILL');
  };
  try {
    const tab = await hostilePeer(d, token, { identity });
    peers.push(tab);
    const peer = await hostilePeer(d, token);
    peers.push(peer);
    return { d, tab, peer, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
