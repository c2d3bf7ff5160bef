// @ts-check
/**
 * Pids, tags, node references and spaces print in JavaScript as they do in Scheme:
 * `String(x)` and `util.inspect(x)` (what console.log uses) give `#<pid N@node>`, not
 * the internal object.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { createNode, Pid } from '@termite/runtime';
import { Evaluator } from '@termite/scheme';

test('a pid of a live process prints as #<pid N@node> with String, inspect and the Scheme printer', async () => {
  const node = await createNode({});
  try {
    const proc = node.spawnHandler(() => {});
    const pid = proc.pid;
    assert.ok(pid instanceof Pid);
    const expected = `#<pid ${pid.n}@${node.id.slice(0, 12)}>`;
    assert.equal(String(pid), expected);
    assert.equal(`${pid}`, expected);
    assert.equal(inspect(pid), expected);
    assert.equal(inspect({ who: pid }), `{ who: ${expected} }`);
    assert.equal(Evaluator.show(pid), expected);
  } finally {
    node.stop();
  }
});

test('tags, node references and spaces print as in Scheme', async () => {
  const { Tag, NodeRef, SpaceRef } = await import('@termite/runtime');
  assert.equal(String(new Tag('abcdefghijklmnop', 7)), '#<tag 7@abcdefghijkl>');
  assert.equal(inspect(new NodeRef('abc', '127.0.0.1', 7400)), '#<node 127.0.0.1:7400>');
  assert.equal(inspect(new NodeRef('abcdefghijklmnop', null, null)), '#<node abcdefghijkl>');
  assert.equal(String(new SpaceRef('abcdefghijklmnop', 'jobs')), '#<space jobs@abcdefghijkl>');
});
