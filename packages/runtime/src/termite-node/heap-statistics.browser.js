// @ts-check
/**
 * The JavaScript heap's statistics in a browser: Chromium's `performance.memory` (its
 * figures are coarse and updated lazily), else a heap that is never full — there the
 * per-process heap limit and the guard (heap-limit.js) do nothing, and the tab's own
 * memory limit is the browser's.
 */

/** @returns {{used_heap_size: number, heap_size_limit: number}} */
export function getHeapStatistics() {
  const m = /** @type {any} */ (globalThis.performance)?.memory;
  if (m && typeof m.usedJSHeapSize === 'number') return { used_heap_size: m.usedJSHeapSize, heap_size_limit: m.jsHeapSizeLimit };
  return { used_heap_size: 0, heap_size_limit: Infinity };
}
