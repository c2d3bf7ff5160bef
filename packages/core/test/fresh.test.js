// @ts-check
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';

const script = new URL('../../../wasm-core/wasm/source-hash.mjs', import.meta.url);

test('the shipped .wasm was built from the current C sources', { skip: !existsSync(script) && 'wasm-core/ is not in this checkout' }, async () => {
  const { staleness } = await import(script.href);
  assert.equal(staleness(), null, 'run: make -C wasm-core wasm');
});
