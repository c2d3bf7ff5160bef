// @ts-check
/**
 * The nodes that live in this JavaScript realm (a daemon has one; tests and benchmarks
 * may start several), so that a pid decoded here finds its local process: the codec's
 * pid hook (termite-values.js `pidHooks`) sets `pid.p` when the pid names a live
 * process of one of them.
 *
 * Invariant: `nodes` holds exactly the nodes created and not stopped; `soleNode` is
 * its only member when it has one (the usual case, one comparison per decoded pid), else
 * null.
 */
import { pidHooks } from '../termite-values.js';

/** @typedef {import('../termite-node.js').TermiteNode} TermiteNode */

/** Every live node in this realm (for pid interning on decode). @type {Set<TermiteNode>} */
const nodes = new Set();
/** The node of `nodes` when it has exactly one (the usual case), else null. @type {TermiteNode | null} */
let soleNode = null;

/** A node was created. @param {TermiteNode} node */
export function addNode(node) {
  nodes.add(node);
  soleNode = nodes.size === 1 ? node : null;
}

/** A node stopped. @param {TermiteNode} node */
export function removeNode(node) {
  nodes.delete(node);
  soleNode = nodes.size === 1 ? nodes.values().next().value ?? null : null;
}

/** The first node of this realm (undefined if none): the one a decoded process port writes through. */
export function firstNode() {
  return [...nodes][0];
}

pidHooks.intern = (pid) => {
  // most pids decoded are another node's: one comparison when this realm has one node
  if (nodes.size === 1) {
    if (soleNode !== null && soleNode.id === pid.node) pid.p = soleNode.bySerialNumber(pid.n);
    return pid;
  }
  for (const n of nodes) {
    if (n.id === pid.node) {
      pid.p = n.bySerialNumber(pid.n);
      break;
    }
  }
  return pid;
};
