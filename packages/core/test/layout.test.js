// @ts-check
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { loadCore, XFER, XFER_FIELDS, XFER_MAGIC, Status } from '../src/index.js';

const core = await loadCore();
const wasmUrl = new URL('../wasm/termite_core.wasm', import.meta.url);
const exportsTxt = new URL('../../../wasm-core/wasm/exports.txt', import.meta.url);

test('the transfer area layout in JavaScript agrees with the C declaration', () => {
  XFER_FIELDS.forEach((name, i) => {
    assert.equal(core.ex.tm_xfer_layout(i), XFER[/** @type {keyof typeof XFER} */ (name)], `offset of ${name}`);
  });
  assert.equal(core.ex.tm_xfer_layout(XFER_FIELDS.length) >>> 0, 0xffffffff);
  assert.equal(core.u32[(core.xfer + XFER.MAGIC) >> 2], XFER_MAGIC);
});

test('the status codes in JavaScript agree with the core', () => {
  for (const [name, code] of Object.entries(Status)) {
    const at = core.ex.tm_status_name(code);
    let end = at;
    while (core.u8[end] !== 0) end++;
    assert.equal(new TextDecoder().decode(core.u8.subarray(at, end)), `TM_${name}`);
  }
});

test('the wasm module exports every function the export list names', { skip: !existsSync(exportsTxt) && 'wasm-core/ is not in this checkout' }, () => {
  const names = readFileSync(exportsTxt, 'utf8').split('\n').map((l) => l.replace(/#.*/, '').trim()).filter(Boolean);
  const mod = new WebAssembly.Module(readFileSync(wasmUrl));
  const have = new Set(WebAssembly.Module.exports(mod).map((e) => e.name));
  for (const n of names) assert.ok(have.has(n), `${n} is exported`);
  assert.deepEqual(WebAssembly.Module.imports(mod).map((i) => i.name), ['emscripten_notify_memory_growth']);
});
