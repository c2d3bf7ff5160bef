// @ts-check
/**
 * The node's scratch core space: a tuple is put in, matched against templates by count
 * (without copying it out), and taken out again by its exact bytes. Distributed replicas
 * use it to ask "does this tuple match that template?" of the C core's matcher.
 *
 * Invariant: between two calls the scratch space is empty — a caller that put a tuple in
 * takes it out with clearScratch before it returns (in a `finally`); a scratch space that
 * could not give its tuple back is dropped, and the next call makes a new one.
 */

/** The node's scratch core space. @param {any} node */
export function scratchSpace(node) {
  if (node.scratchSpace === undefined) node.scratchSpace = node.core.createSpace();
  return node.scratchSpace;
}

/**
 * Take the tuple back out of the scratch space, by its exact bytes (a tuple holding
 * formals, S/Net, included); should it not be there, the scratch space is dropped for a
 * new one.
 * @param {any} node @param {any} scratch @param {Uint8Array} bytes
 */
export function clearScratch(node, scratch, bytes) {
  if (scratch.removeExactBytes(bytes)) return;
  scratch.destroy();
  node.scratchSpace = undefined;
}
