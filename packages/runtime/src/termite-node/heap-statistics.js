// @ts-check
/**
 * The JavaScript heap's statistics in Node (v8.getHeapStatistics, ~0.7 µs a call): what
 * the per-process heap limit and the node-wide guard read (heap-limit.js). The browser
 * twin (heap-statistics.browser.js) answers from `performance.memory` where it exists.
 */
import v8 from 'node:v8';

/** @returns {{used_heap_size: number, heap_size_limit: number}} */
export function getHeapStatistics() {
  return v8.getHeapStatistics();
}
