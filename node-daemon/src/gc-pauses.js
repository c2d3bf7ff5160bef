// @ts-check
/**
 * The long garbage-collection pauses of this process, for /health (docs/processes.md,
 * "Fairness"): preemption bounds what a process makes the event loop wait, but not a
 * collection of the heap the processes hold (a major collection of 5,000,000 live pairs
 * takes hundreds of milliseconds). /health reports the newest such pauses so that an
 * operator, and the attack tests, can tell a long answer caused by a collection from
 * one caused by a process.
 *
 * It also keeps the heap in use just after the newest major (mark-compact) collection:
 * the live heap, which a heap figure read at any other moment overstates by the garbage
 * made since (memory given back when processes end shows there first).
 *
 * Invariants: one PerformanceObserver per process, started by the first `watchGcPauses`
 * and never keeping the process alive; only pauses of at least MIN_MS are kept, at most
 * KEPT of them (the newest); each is kept with when it ended (performance.now()).
 */
import { PerformanceObserver, performance, constants } from 'node:perf_hooks';
import v8 from 'node:v8';

/** Pauses shorter than this (ms) are not kept: a young-generation collection takes a few ms. */
const MIN_MS = 20;
/** Pauses kept at most (the newest). */
const KEPT = 32;

/** @type {Array<{end: number, ms: number}>} */
const pauses = [];
/** @type {{end: number, bytes: number} | null} the heap used read just after the newest major collection */
let afterMajor = null;
let watching = false;

/** Start recording long collections (idempotent). */
export function watchGcPauses() {
  if (watching) return;
  watching = true;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      // read as the observer runs (the task after the collection): what was live, and little since
      if (/** @type {any} */ (entry).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) afterMajor = { end: entry.startTime + entry.duration, bytes: v8.getHeapStatistics().used_heap_size };
      if (entry.duration < MIN_MS) continue;
      pauses.push({ end: entry.startTime + entry.duration, ms: entry.duration });
      if (pauses.length > KEPT) pauses.shift();
    }
  });
  observer.observe({ entryTypes: ['gc'] });
}

/**
 * The newest long pauses, oldest first: how long each took and how long ago it ended (ms).
 * @returns {Array<{ms: number, endedMsAgo: number}>}
 */
export function recentGcPauses() {
  const now = performance.now();
  return pauses.map((p) => ({ ms: Math.round(p.ms), endedMsAgo: Math.round(now - p.end) }));
}

/**
 * The heap in use just after the newest major collection, and how long ago it ended (ms),
 * or null before the first.
 * @returns {{bytes: number, endedMsAgo: number} | null}
 */
export function heapAfterMajorGc() {
  return afterMajor === null ? null : { bytes: afterMajor.bytes, endedMsAgo: Math.round(performance.now() - afterMajor.end) };
}
