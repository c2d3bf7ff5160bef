// @ts-check
/**
 * The memo of a chunked copy (copy-job.js): what each object of the message was copied
 * to, so that sharing and cycles are kept. It is a list of `Map` segments, none of which
 * holds more than SEGMENT entries.
 *
 * Why segments: V8 grows a `Map` by rehashing it whole in one call, and that call cannot
 * be cut. Growing a `Map` of objects past 65,536 entries took 2.5 ms, past 131,072 6 ms,
 * past 262,144 14–22 ms, past 524,288 28–54 ms and past 1,048,576 82–167 ms (a scratch
 * loop timing each `set`, load average 1–2). A segment stops growing at SEGMENT entries,
 * so the longest growth of any segment is the one to SEGMENT (~6 ms quiet), and a new
 * entry then goes to a fresh segment. A lookup walks the segments, newest first: a miss
 * (an object not met before, the commonest lookup) costs one `Map` lookup per segment,
 * so a copy of N objects costs about N²/(2·SEGMENT) lookups and a unit of work costs more
 * as the memo grows; the chunk of the copy is therefore sized by time, not by count
 * (copy-job.js). SEGMENT is the largest power of two whose growth stays well under the
 * event-loop bound (20 ms) on a loaded machine; 2^18 took 14–22 ms quiet.

 * Invariants: a key is in at most one segment (a key is set only after a lookup missed
 * it); every segment but the newest holds exactly SEGMENT entries; `size` is the number
 * of entries in all segments.
 */

/** Entries a segment holds at most: its growth to this size is its longest step. */
export const SEGMENT = 1 << 17;

export class SegmentedMemo {
  constructor() {
    /** @type {Map<any, any>[]} oldest first; the last is the one being filled */
    this.segments = [new Map()];
    /** @type {Map<any, any>} */
    this.current = this.segments[0];
    this.size = 0;
  }

  /** The copy of `x`, or undefined if it was not copied yet. @param {any} x */
  get(x) {
    const v = this.current.get(x);
    if (v !== undefined) return v;
    const segs = this.segments;
    for (let i = segs.length - 2; i >= 0; i--) {
      const w = segs[i].get(x);
      if (w !== undefined) return w;
    }
    return undefined;
  }

  /** Whether `x` was copied. @param {any} x */
  has(x) {
    return this.get(x) !== undefined;
  }

  /** Record `x`'s copy (x must not be recorded yet). @param {any} x @param {any} copy */
  set(x, copy) {
    if (this.current.size >= SEGMENT) {
      this.current = new Map();
      this.segments.push(this.current);
    }
    this.current.set(x, copy);
    this.size++;
  }
}
