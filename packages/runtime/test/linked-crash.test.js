// @ts-check
/**
 * A crash of a process linked to a REPL's process, reported as erl's shell does
 * (`trapExits`, `describeExit`; docs/processes.md, "Exceptions, links and exit
 * signals"): the REPL's process traps
 * exits, so the crash reaches the host as "** exception exit: …" with the error, the
 * pid of the process that died and its frames, and the REPL's process lives on with
 * the same pid and its mailbox. Without trapping, the same crash ends the process, and
 * a program's main process that dies of it says whose crash it was.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createNode, NodeEvaluator, trapExits, describeExit } from '../src/index.js';

/** @param {(node: any) => Promise<void>} fn */
async function withNode(fn) {
  const node = await createNode({ stdout: () => {}, log: () => {} });
  try {
    await fn(node);
  } finally {
    node.stop();
  }
}

/** Wait for `cond` (bounded: a test fails, it does not hang). @param {() => boolean} cond */
async function until(cond) {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(cond(), 'timed out');
}

test('a linked crash at a REPL that traps exits is reported, and the REPL keeps its process and mailbox', async () => {
  await withNode(async (node) => {
    const ev = new NodeEvaluator(node);
    const server = ev.serverProcess();
    /** @type {string[]} */
    const reports = [];
    trapExits(node, server.pid, (payload, from) => reports.push(describeExit(payload, from)));
    const before = (await ev.evalText('(! (self) \'kept) (self)', { timeoutMs: 5000 })).outputs.join('');
    const r = await ev.evalText(`(define (boom x) (car x))\n(define w (spawn-link (lambda () (boom 7))))`, { timeoutMs: 5000 });
    assert.ok(r.ok, r.outputs.join('\n'));
    await until(() => reports.length > 0);
    assert.match(reports[0], /^\*\* exception exit: car: expected a pair: 7 \(at repl[^)]*\) \(from process \d+\)\n {2}in boom at /);
    const after = await ev.evalText('(self)', { timeoutMs: 5000 });
    assert.equal(after.outputs.join(''), before, 'the same process');
    assert.deepEqual((await ev.evalText('(? 0 \'empty)', { timeoutMs: 5000 })).outputs, ['kept'], 'its mailbox');
  });
});

test('a raised value that is not an error object reads as erl writes it', async () => {
  await withNode(async (node) => {
    const ev = new NodeEvaluator(node);
    /** @type {string[]} */
    const reports = [];
    trapExits(node, ev.serverProcess().pid, (payload, from) => reports.push(describeExit(payload, from)));
    await ev.evalText(`(spawn-link (lambda () (raise 'boom)))`, { timeoutMs: 5000 });
    await until(() => reports.length > 0);
    assert.match(reports[0], /^\*\* exception exit: boom \(from process \d+\)/);
  });
});

test('without trapping, the linked crash ends the REPL\'s process (the next input runs in a new one)', async () => {
  await withNode(async (node) => {
    const ev = new NodeEvaluator(node);
    const first = ev.serverProcess();
    await ev.evalText(`(spawn-link (lambda () (car 1)))`, { timeoutMs: 5000 });
    await until(() => !first.alive);
    await ev.evalText('1', { timeoutMs: 5000 });
    assert.notEqual(ev.serverProcess(), first);
  });
});

test('a program whose main process dies of a linked crash says whose crash it was', async () => {
  await withNode(async (node) => {
    const r = await node.runProgram(`(define (boom x) (car x))\n(spawn-link (lambda () (boom 7)))\n(?)`, { file: 'lc.scm' });
    assert.equal(r.ok, false);
    assert.match(r.message, /^car: expected a pair: 7 \(at lc\.scm:1:18\) \(exit signal from linked process \d+\)$/);
    assert.deepEqual(r.backtrace, ['boom at lc.scm:1:18', '(anonymous procedure) at lc.scm:2:24']);
  });
});
