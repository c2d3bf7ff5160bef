// @ts-check
/**
 * The per-process heap limit (docs/security.md, "Limits on processes and their time"):
 * a process that builds a list forever, or recurses 10,000,000 frames deep, is stopped
 * with a `resource-limit` error naming the limit; the node keeps running programs and
 * the memory comes back; a process that allocates only garbage is never stopped.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import v8 from 'node:v8';
import vm from 'node:vm';
import { createNode } from '../src/index.js';

const LIMIT = 32 * 1048576;

async function limitedNode() {
  /** @type {string[]} */
  const log = [];
  const node = /** @type {any} */ (await createNode({ log: (s) => log.push(s), limits: { maxProcessHeap: LIMIT } }));
  return { node, log };
}

/** A garbage collection on demand (without --expose-gc on the command line). */
function getGc() {
  v8.setFlagsFromString('--expose-gc');
  return /** @type {() => void} */ (vm.runInNewContext('gc'));
}

/** @param {any} r */
function assertHeapLimit(r) {
  assert.equal(r.ok, false, 'the process was stopped');
  assert.equal(r.error.kind, 'resource-limit');
  assert.match(r.message, /stopped: it holds more than 32 MiB, its heap limit \(--max-process-heap\)/);
}

test('a process that builds a list forever is stopped at its heap limit; the node runs on and the memory comes back', { timeout: 60_000 }, async () => {
  const gc = getGc();
  const { node, log } = await limitedNode();
  try {
    gc();
    const heap0 = process.memoryUsage().heapUsed;
    const r = await node.runProgram(`(let loop ((l '())) (loop (cons 1 l)))`);
    assertHeapLimit(r);
    assert.ok(log.some((l) => /process \d+ stopped: it holds more than 32 MiB/.test(l)), 'logged');
    assert.equal(node.stats.heapKills, 1);
    // a linked process gets the error as its exit signal
    const linked = await node.runProgram(`
      (define p (spawn-link (lambda () (let loop ((v '())) (loop (cons (make-vector 8 0) v))))))
      (catch (lambda (e) e) (?))`);
    assert.ok(linked.ok, linked.message);
    assert.equal(linked.value.kind, 'resource-limit');
    assert.match(String(linked.value.message), /its heap limit/);
    const again = await node.runProgram(`(let ((p (spawn (lambda () (! (?) 'pong))))) (! p (self)) (?))`);
    assert.ok(again.ok, again.message);
    await new Promise((res) => setTimeout(res, 10));
    gc();
    const kept = process.memoryUsage().heapUsed - heap0;
    assert.ok(kept < 16 * 1048576, `heap kept ${(kept / 1048576).toFixed(1)} MiB after the stopped processes`);
  } finally {
    node.stop();
  }
});

test('a recursion 10,000,000 frames deep is stopped at the heap limit', { timeout: 60_000 }, async () => {
  const { node } = await limitedNode();
  try {
    const r = await node.runProgram(`(define (f n) (if (= n 0) 0 (+ 1 (f (- n 1))))) (f 10000000)`);
    assertHeapLimit(r);
  } finally {
    node.stop();
  }
});

test('a process that allocates only garbage, many times its limit, is never stopped; one that holds just under it neither', { timeout: 60_000 }, async () => {
  const { node } = await limitedNode();
  try {
    // 20,000,000 pairs made (~800 MB), 1,000 held at a time
    const r = await node.runProgram(`(let loop ((i 0)) (make-list 1000 1) (if (< i 20000) (loop (+ i 1)) 'done))`);
    assert.ok(r.ok, r.message);
    // ~16 MiB held (400,000 pairs) while it allocates 10 times that in garbage
    const held = await node.runProgram(`
      (let ((keep (make-list 400000 1)))
        (let loop ((i 0)) (make-list 1000 i) (if (< i 4000) (loop (+ i 1)) (length keep))))`);
    assert.ok(held.ok, held.message);
    assert.equal(held.value, 400000);
    assert.equal(node.stats.heapKills, 0);
  } finally {
    node.stop();
  }
});

test('one primitive call cannot build more than the heap limit allows: make-vector and make-list of 100,000,000 are refused before they allocate', { timeout: 60_000 }, async () => {
  const { node } = await limitedNode();
  try {
    for (const call of ['(make-vector 100000000 0)', '(make-list 100000000 0)']) {
      const r = await node.runProgram(`(vector? ${call})`);
      assert.equal(r.ok, false, call);
      assert.equal(r.error.kind, 'resource-limit');
      assert.match(r.message, /cannot build 100000000 elements in one call: at most 838860/);
    }
    // and under the cap a call builds as before
    const ok = await node.runProgram(`(vector-length (make-vector 800000 0))`);
    assert.ok(ok.ok, ok.message);
    assert.equal(ok.value, 800000);
  } finally {
    node.stop();
  }
});
