// @ts-check
/**
 * Shared by the runtime's API tests (node --test also loads this file as a test file:
 * it defines no test, so it passes trivially).
 *
 *   runScheme(text)          a fresh node runs the program as its main process; resolves
 *                            to {ok, value, message, out, log} once the main process
 *                            returns or dies, or rejects after a bounded time
 *   withNode(async (h) => …) a fresh node for a test that also looks at it from JS;
 *                            h.run(text) runs a program on it, h.out() is the output so far
 *
 * Every node is stopped in a finally. No test sleeps to hope: programs wait for what
 * they need (a message, a tuple, a process's end) and the harness bounds the wait.
 */
import { createNode } from '../src/index.js';

/** How long one program may take before the test fails (ms). */
export const PROGRAM_LIMIT_MS = 20_000;

/**
 * @typedef {object} Outcome
 * @property {boolean} ok whether the main process returned (rather than died)
 * @property {any} value what it returned
 * @property {string} message the error message when it died
 * @property {string} out everything the node's stdout process wrote
 * @property {string[]} log the node's log lines (supervisor info, unlinked deaths)
 */

/**
 * @typedef {object} NodeHandle
 * @property {any} node the node (a TermiteNode with runProgram)
 * @property {(text: string, opts?: {limitMs?: number}) => Promise<Outcome>} run
 * @property {() => string} out
 * @property {string[]} log
 */

/**
 * @template T
 * @param {(h: NodeHandle) => Promise<T>} fn
 * @returns {Promise<T>}
 */
export async function withNode(fn) {
  /** @type {string[]} */
  const chunks = [];
  /** @type {string[]} */
  const log = [];
  const node = /** @type {any} */ (await createNode({ stdout: (s) => chunks.push(s), log: (s) => log.push(s) }));
  const out = () => chunks.join('');
  let serial = 0;
  /** @param {string} text @param {{limitMs?: number}} [opts] */
  const run = async (text, opts = {}) => {
    const limit = opts.limitMs ?? PROGRAM_LIMIT_MS;
    /** @type {any} */
    let timer = null;
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => {
        node.flushStdout();
        reject(new Error(`the program did not finish within ${limit} ms; output so far:\n${out()}\nlog:\n${log.join('\n')}`));
      }, limit);
    });
    try {
      const r = await Promise.race([node.runProgram(text, { file: `test-${++serial}.scm` }), timeout]);
      node.flushStdout();
      return { ok: r.ok, value: r.ok ? r.value : undefined, message: r.ok ? '' : r.message, out: out(), log };
    } finally {
      clearTimeout(timer);
    }
  };
  try {
    return await fn({ node, run, out, log });
  } finally {
    node.stop();
  }
}

/**
 * Run a program on a fresh node.
 * @param {string} text @param {{limitMs?: number}} [opts]
 * @returns {Promise<Outcome>}
 */
export function runScheme(text, opts) {
  return withNode((h) => h.run(text, opts));
}

/**
 * Run a program that must succeed; returns its output.
 * @param {string} text @param {{limitMs?: number}} [opts]
 */
export async function schemeOut(text, opts) {
  const r = await runScheme(text, opts);
  if (!r.ok) throw new Error(`the program failed: ${r.message}\noutput:\n${r.out}\nlog:\n${r.log.join('\n')}`);
  return r.out;
}

/** A Scheme prelude for tests: (show x ...) writes its arguments on one line. */
export const SHOW = `(define (show . xs)
  (let loop ((xs xs))
    (if (pair? xs)
        (begin (write (car xs)) (if (pair? (cdr xs)) (display " ")) (loop (cdr xs)))))
  (newline))
`;

/**
 * The event loop's turns while something runs on a node: `samples` gaps between 1 ms
 * interval ticks, after `warmup` ticks, sorted ascending (the preemption tests' measure).
 * @param {number} samples @param {number} warmup
 * @returns {Promise<number[]>}
 */
export async function eventLoopGaps(samples, warmup) {
  /** @type {number[]} */
  const gaps = [];
  let ticks = 0;
  let last = performance.now();
  await new Promise((resolve) => {
    const timer = setInterval(() => {
      const now = performance.now();
      if (++ticks > warmup) gaps.push(now - last);
      last = now;
      if (gaps.length >= samples) {
        clearInterval(timer);
        resolve(undefined);
      }
    }, 1);
  });
  return gaps.sort((a, b) => a - b);
}
