// @ts-check
/** Bytes per idle process (JS heap + core), over 100,000 processes blocked in `?`. */
import { createNode } from '@termite/runtime';

const node = await createNode({});
const N = 100000;
/** @type {any} */ (globalThis).gc?.();
const heap0 = process.memoryUsage().heapUsed;
const core0 = node.core.liveBytes;
const r = await /** @type {any} */ (node).runProgram(`(define (idle) (?)) (let loop ((i 0)) (if (< i ${N}) (begin (spawn idle) (loop (+ i 1))))) (sleep 0.2)`, { file: 'idle.scm' });
if (!r.ok) throw new Error(r.message);
/** @type {any} */ (globalThis).gc?.();
const heap = process.memoryUsage().heapUsed - heap0;
const core = node.core.liveBytes - core0;
console.log(Math.round((heap + core) / N));
node.stop();
process.exit(0);
