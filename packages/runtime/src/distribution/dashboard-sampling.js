// @ts-check
/**
 * What a dashboard sees of the mesh through this node: its snapshot (the node's
 * processes, spaces and counters, its peers and recent arrivals, and the logical
 * network of messengers it hosts, bounded by LOGICAL_LIMITS), snapshots of every
 * node it can reach (STATS requests, each bounded in time: an unreachable node is
 * listed as such), references to every reachable node, and evaluation of Scheme text
 * on a node that accepts it (EVAL; docs/dashboard.md).
 *
 * These functions are Distribution's methods (`this` is the Distribution), moved here whole.
 */
import { encodeValue, decodeValue } from '@termite/scheme/internal';
import { R_STATS, R_EVAL } from './frame-vocabulary.js';
import { logicalNetworkSnapshot } from '../messengers/logical-network.js';
import { libraryUsers } from '../code-libraries/library-usage.js';

/**
 * The most of its logical network a node puts in one snapshot: the first 256 logical
 * nodes and 1024 links (its `total` counts them all), so a sample stays small whatever
 * a program builds.
 */
export const LOGICAL_LIMITS = { nodes: 256, links: 1024 };

/** @typedef {import('../distribution.js').Distribution} Distribution */

/** This node's snapshot plus its links. @this {Distribution} */
export function snapshot() {
  const snap = /** @type {any} */ (this.node.snapshot());
  snap.peers = this.mesh.peers().map((p) => ({ id: p.id, transport: p.transport, rttMs: p.rttMs }));
  snap.arrivals = this.arrivals.slice();
  const logical = logicalNetworkSnapshot(this.node, LOGICAL_LIMITS);
  if (logical.total.nodes > 0) snap.logical = logical; // only a node that hosts logical nodes says so
  const libraries = this.libraries.info.size > 0 ? this.libraries.list(libraryUsers(this.node)) : [];
  if (libraries.length > 0) snap.libraries = libraries; // versioned libraries published or installed here, with the processes using them
  if (libraries.length > 0 || this.libraries.unloaded > 0) snap.libraryCounts = { fetched: this.libraries.fetched, unloaded: this.libraries.unloaded };
  const approvals = this.libraries.pendingList();
  if (approvals.length > 0) snap.libraryApprovals = approvals; // untrusted publishers asked for here
  return snap;
}

/**
 * Snapshots of every node this one can reach (itself included), each bounded in time.
 * @param {number} [timeoutMs]
 * @this {Distribution}
 */
export async function meshSnapshot(timeoutMs = 1500) {
  const ids = new Set([...this.mesh.peers().map((p) => p.id), ...this.mesh.routes().map((r) => r.id)]);
  const others = await Promise.all([...ids].map(async (id) => {
    try {
      const bytes = await this.mesh.request(id, encodeValue([R_STATS]), { timeoutMs });
      const r = decodeValue(bytes);
      return r[0] === true ? JSON.parse(r[1]) : null;
    } catch {
      return { id, unreachable: true };
    }
  }));
  return [this.snapshot(), ...others.filter((x) => x !== null)];
}

/**
 * Evaluate Scheme text on a node (this one or a peer that accepts EVAL).
 * @param {string} id @param {string} text
 * @this {Distribution}
 */
export async function evalOn(id, text) {
  if (id === this.node.id) {
    if (this.evaluate === null) throw new Error('evaluation is not enabled on this node');
    return this.evaluate(text);
  }
  const bytes = await this.mesh.request(id, encodeValue([R_EVAL, text]), { timeoutMs: 30000 });
  const r = decodeValue(bytes);
  if (r[0] !== true) throw new Error(String(r[1]));
  return JSON.parse(r[1]);
}

/** Node references for every node reachable from here (not this one). @this {Distribution} */
export function knownNodes() {
  const ids = new Set([...this.mesh.peers().map((p) => p.id), ...this.mesh.routes().map((r) => r.id)]);
  ids.delete(this.node.id);
  return [...ids].sort().map((id) => this.nodeRefOf(id));
}
