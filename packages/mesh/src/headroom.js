// @ts-check
/**
 * Headroom: free bytes in front of a frame, in its own buffer, that a transport may
 * overwrite with its frame head, so a large frame and its head leave as one buffer
 * (no copy of the frame behind the head, no second buffer in the write).
 *
 * A frame is marked when the node built it in place in front of a payload whose sender
 * gave spare bytes (MeshNode.send's `spare`: frames.js encodeMsg), and at least
 * TRANSPORT_HEADROOM of them were left after the envelope. Only large frames are marked
 * (the small ones go through a transport's batch copy anyway), so the WeakMap is touched
 * once per large message.
 *
 * Invariants: a mark names the exact byte offset of the frame in its buffer, so a view
 * of the same buffer elsewhere is never taken for it; the bytes in front belong to the
 * frame's producer alone, so writing a head there twice (a frame written again, or on two
 * links) writes the same bytes.
 */

/** Free bytes a transport may need in front of a marked frame (TCP's 4-byte length). */
export const TRANSPORT_HEADROOM = 4;
/** Frames this large or larger are worth marking. */
export const MARK_FROM = 4096;

/** @type {WeakMap<ArrayBufferLike, number>} a buffer → the offset of the marked frame in it */
const marked = new WeakMap();

/** Note that TRANSPORT_HEADROOM bytes in front of `frame` are free. @param {Uint8Array} frame */
export function markHeadroom(frame) {
  marked.set(frame.buffer, frame.byteOffset);
}

/** Whether TRANSPORT_HEADROOM bytes in front of `frame` are free to overwrite. @param {Uint8Array} frame */
export function hasHeadroom(frame) {
  return marked.get(frame.buffer) === frame.byteOffset && frame.byteOffset >= TRANSPORT_HEADROOM;
}
