// @ts-check
/**
 * The REPL's evaluator on a node (NodeEvaluator, what Ctrl-C calls): an interrupt ends
 * the running input with an 'interrupted' error wherever it is (a loop, a receive, a
 * Linda wait, whose waiting template is withdrawn) and keeps the REPL's process; an
 * interrupt that lands between inputs is dropped without ending that process; output of
 * inputs and their processes goes to the output process as it happens.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createNode, NodeEvaluator } from '@termite/runtime';
import { ErrorObject } from '@termite/scheme';

async function setup() {
  let out = '';
  const node = await createNode({ stdout: (s) => (out += s), log: () => {} });
  const ev = new NodeEvaluator(node, { outputPid: node.stdoutProcess.pid });
  return { node, ev, out: () => out };
}

/** @param {NodeEvaluator} ev @param {string} text */
async function interrupted(ev, text) {
  const p = ev.evalText(text);
  const timer = setInterval(() => ev.interrupt(), 100);
  try {
    return await p;
  } finally {
    clearInterval(timer);
  }
}

test('an interrupt ends a loop, a receive and a Linda wait; the REPL\'s process stays', async () => {
  const { node, ev } = await setup();
  try {
    assert.equal(ev.interrupt(), false, 'nothing runs yet');
    await ev.evalText('(define me (self))');
    for (const text of ['(let spin () (spin))', '(?)', "(in 'never ?integer)"]) {
      const r = await interrupted(ev, text);
      assert.deepEqual(r.outputs, ['Error: interrupted (Ctrl-C)'], text);
      assert.equal(ev.lastError.message, 'interrupted (Ctrl-C)');
    }
    assert.deepEqual((await ev.evalText('(eq? me (self))')).outputs, ['#t']);
    // the interrupted `in` no longer waits: the tuple stays for the next reader
    assert.deepEqual((await ev.evalText("(out 'never 1) (inp 'never ?integer)")).outputs, ['(never 1)']);
  } finally {
    node.stop();
  }
});

test('an interrupt between inputs is dropped; the session keeps its process', async () => {
  const { node, ev } = await setup();
  try {
    await ev.evalText('(define me (self))');
    const server = /** @type {any} */ (ev.server);
    node.signal(server.pid, new ErrorObject('interrupted (Ctrl-C)', null, 'interrupt', null));
    assert.deepEqual((await ev.evalText('(eq? me (self))')).outputs, ['#t']);
  } finally {
    node.stop();
  }
});

test('with outputPid, what an input and its processes display reaches the output as it happens', async () => {
  const { node, ev, out } = await setup();
  try {
    const r = await ev.evalText('(display "now") (spawn (lambda () (sleep 0.1) (display "later"))) 5');
    assert.equal(r.outputs.at(-1), '5');
    assert.equal(out(), 'now');
    const until = Date.now() + 5000;
    while (!out().includes('later') && Date.now() < until) await new Promise((res) => setTimeout(res, 20));
    assert.equal(out(), 'nowlater');
  } finally {
    node.stop();
  }
});
