// @ts-check
/**
 * Node addresses: which node id a NodeRef names. A daemon is named by host and port
 * (`make-node`), a tab by id only; the address book maps "host:port" to the id of the
 * node listening there, learnt from peers' listen URLs ('peer:up') and from connecting
 * (`resolveNode`).
 *
 * Invariant: an entry names a node this one has been linked to; it leaves when the node
 * goes down (remote-links.js), and is used only while the node is reachable.
 *
 * These functions are Distribution's methods (`this` is the Distribution), moved here whole.
 */
import { NodeRef } from '../termite-values.js';

/** @typedef {import('../distribution.js').Distribution} Distribution */

/** A peer came up: note the address it says it listens at. @param {string} id @this {Distribution} */
export function notePeer(id) {
  for (const p of this.mesh.peers()) {
    if (p.id !== id || !p.listenUrl) continue;
    const m = /^wss?:\/\/([^/:]+):(\d+)/.exec(p.listenUrl);
    if (m) this.addressBook.set(`${m[1]}:${m[2]}`, id);
  }
}

/**
 * The node id a NodeRef names, connecting to it if needed.
 * @param {NodeRef} ref
 * @returns {Promise<string>}
 * @this {Distribution}
 */
export async function resolveNode(ref) {
  const known = this.knownNode(ref);
  if (known !== null) return known;
  const addr = `${ref.host}:${ref.port}`;
  const peer = await this.mesh.connect(`ws://${addr}`, { timeoutMs: this.timeoutMs });
  this.addressBook.set(addr, peer.id);
  return peer.id;
}

/**
 * resolveNode's answer when it needs no connection (the reference has an id, or names
 * this node or a reachable node of the address book), else null.
 * @param {NodeRef} ref @returns {string | null}
 * @this {Distribution}
 */
export function knownNode(ref) {
  if (ref.id !== null) return ref.id;
  const self = this.node.ref;
  if (self.host === ref.host && self.port === ref.port) return this.node.id;
  const known = this.addressBook.get(`${ref.host}:${ref.port}`);
  if (known && this.mesh.isReachable(known)) return known;
  // a node reached through others, whose listen URL came with its route (no direct link needed)
  const routed = this.mesh.routes().find((r) => r.url !== null && /^wss?:\/\/([^/]+)/.exec(r.url)?.[1] === `${ref.host}:${ref.port}`);
  return routed ? routed.id : null;
}

/** A NodeRef for a node id (with its address when known). @param {string} id @this {Distribution} */
export function nodeRefOf(id) {
  if (id === this.node.id) return this.node.ref;
  for (const [addr, nid] of this.addressBook) {
    if (nid !== id) continue;
    const i = addr.lastIndexOf(':');
    return new NodeRef(id, addr.slice(0, i), Number(addr.slice(i + 1)));
  }
  return new NodeRef(id, null, null);
}
