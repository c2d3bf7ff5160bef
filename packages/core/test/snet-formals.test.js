// @ts-check
/**
 * S/Net's formals inside tuples through the JS face of the core: a tuple stored with a
 * formal field is matched by an actual of that type (and not of another), never by a
 * formal, comes back with its formal, and leaves the space consistent.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadCore, formal, Formal, Sym } from '../src/index.js';

test('a formal in a tuple matches an actual of its type and never a formal', async () => {
  const core = await loadCore();
  const s = core.createSpace();
  s.out(['job', formal.integer]);
  s.out(['job', formal.symbol]);
  assert.equal(s.rdp(['job', formal.integer]), undefined);
  assert.equal(s.rdp(['job', formal.any]), undefined);
  assert.equal(s.count(['job', formal.any]), 0);
  assert.equal(s.rdp(['job', 'text']), undefined);
  assert.equal(s.count(['job', 7]), 1);
  const got = s.inp(['job', Sym.for('go')]);
  assert.ok(got && got[1] instanceof Formal && got[1].code === formal.symbol.code);
  assert.deepEqual(s.inp(['job', -5]), ['job', formal.integer]);
  assert.equal(s.size, 0);
  s.check();
  s.destroy();
  core.destroy();
});

test('an unknown formal in a tuple is refused and the space is unchanged', async () => {
  const core = await loadCore();
  const s = core.createSpace();
  s.out(['keep', 1]);
  assert.throws(() => s.out(['x', new Formal(12)]), { name: 'UnknownFormalError', message: /field 1: code 12/ });
  assert.equal(s.size, 1);
  s.check();
  core.destroy();
});
