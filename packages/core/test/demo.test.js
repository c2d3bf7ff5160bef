// @ts-check
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, rmSync } from 'node:fs';
import { demo } from '../examples/demo.js';

test('the demo prints tuple operations and a scheduling round', async () => {
  const lines = await demo(() => {});
  assert.ok(lines.some((l) => l.includes('rdp ["point", integer, integer]') && l.endsWith('["point",3,4]')));
  assert.ok(lines.some((l) => l.includes('inp ["point", 5, any]') && l.endsWith('["point",5,12]')));
  assert.ok(lines.some((l) => l.includes('urgent is waiting-tuple')));
  assert.ok(lines.some((l) => l.includes('urgent (tuple) with ["job","render"]')));
  assert.ok(lines.at(-1)?.includes('nobody is ready'));
});

test('the example in the package documentation runs as written', async () => {
  const src = readFileSync(new URL('../src/index.js', import.meta.url), 'utf8');
  const code = /@example\s+\* ```js\n([\s\S]*?)\* ```/.exec(src)?.[1]?.replace(/^ \* ?/gm, '');
  assert.ok(code && code.includes('loadCore'), 'the example was found');
  const file = new URL('./.example.tmp.mjs', import.meta.url);
  writeFileSync(file, code);
  try {
    await import(file.href);
  } finally {
    rmSync(file, { force: true });
  }
});
