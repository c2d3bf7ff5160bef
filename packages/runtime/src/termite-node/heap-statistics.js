// @ts-check
/**
 * The JavaScript heap's statistics in Node (v8.getHeapStatistics, ~0.7 µs a call): what
 * the per-process heap limit and the node-wide guard read (heap-limit.js). The browser
 * twin (heap-statistics.browser.js) answers from `performance.memory` where it exists.
 * `node:v8` is loaded at the first call, not with this module: loading it (it brings in
 * Node's streams) is ~2 ms of CPU that a short program, which never asks, need not pay.
 */
import { createRequire } from 'node:module';

/** @type {typeof import('node:v8') | null} */
let v8 = null;

/** @returns {{used_heap_size: number, heap_size_limit: number}} */
export function getHeapStatistics() {
  v8 ??= /** @type {typeof import('node:v8')} */ (createRequire(import.meta.url)('node:v8'));
  return v8.getHeapStatistics();
}
