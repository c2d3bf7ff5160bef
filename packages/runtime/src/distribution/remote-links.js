// @ts-check
/**
 * Links to processes on other nodes, and failure detection. A local process linked to a
 * remote one is a watcher of it (`watchers`): when the remote process's node goes away
 * (the mesh's 'peer:down', after a disconnection or missed heartbeats), every watcher
 * gets an exit signal, as it would have had the process died. A node reached only
 * through others is down when no neighbour offers a route to it any more (the mesh's
 * 'routes' event, after its own neighbour lost it).
 *
 * Invariants: a watched process is looked for where this node sends its messages
 * (`location`, else its birth node); a node found down signals each of its watchers once
 * and forgets them, and its addresses leave the address book (node-addresses.js).
 *
 * These functions are Distribution's methods (`this` is the Distribution), moved here whole.
 */
import { ErrorObject, arrayToList } from '@termite/scheme';
import { Pid } from '../termite-values.js';
import { key, splitKey } from './frame-vocabulary.js';

/** @typedef {import('../distribution.js').Distribution} Distribution */

/**
 * Remember that local `to` must hear of `from`'s death, including when from's node
 * disappears.
 * @param {Pid} from @param {Pid} to
 * @this {Distribution}
 */
export function watch(from, to) {
  const k = key(from.node, from.n);
  let set = this.watchers.get(k);
  if (!set) this.watchers.set(k, (set = new Set()));
  set.add(key(to.node, to.n));
}

/** Routes changed: a watched node that is no longer reachable at all is down. @this {Distribution} */
export function routesChanged() {
  /** @type {Set<string>} */
  const gone = new Set();
  for (const k of this.watchers.keys()) {
    const node = this.location.get(k) ?? splitKey(k)[0];
    if (node !== this.node.id && !gone.has(node) && !this.mesh.isReachable(node)) gone.add(node);
  }
  for (const id of gone) this.peerDown(id, 'no route to it any more');
}

/** A node went away: every process linked to one of its processes gets an exit signal. @param {string} id @param {string} reason @this {Distribution} */
export function peerDown(id, reason) {
  for (const [k, locals] of this.watchers) {
    const [node, n] = splitKey(k);
    if ((this.location.get(k) ?? node) !== id) continue;
    this.watchers.delete(k);
    const from = new Pid(node, n);
    const payload = new ErrorObject(`node ${id.slice(0, 12)} is unreachable (${reason})`, arrayToList([from]), 'node-down', 'link');
    for (const lk of locals) {
      const [ln, nn] = splitKey(lk);
      this.node.signal(new Pid(ln, nn), payload);
    }
  }
  for (const [addr, nid] of this.addressBook) if (nid === id) this.addressBook.delete(addr);
}
