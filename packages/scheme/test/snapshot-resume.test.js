// @ts-check
/**
 * The proof that a running program is data, which migration relies on
 * (docs/architecture.md, "A migration"): for each program of a corpus, run it
 * uninterrupted to get its output; run it again in slices of a few reductions and
 * snapshot the whole thread (continuation, dynamic state, globals) between slices —
 * inside map, inside dynamic-wind, inside guard, inside parameterize, in deep
 * recursion, after call/cc re-entry; then resume every snapshot in a *fresh Node
 * process* that has the code but never ran the program, and check that what was
 * printed before the snapshot plus what the resumed run prints is exactly the
 * uninterrupted output.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import {
  boot, consoleSinks, compileProgramText, linkProgram, Thread, runSlice, snapshotThread,
  SLICE_DONE, SLICE_YIELD,
} from '@termite/scheme';

const here = path.dirname(fileURLToPath(import.meta.url));
const corpus = path.join(here, 'fixtures', 'snapshot');
const MAX_SNAPSHOTS = 60;

/**
 * Run a program in slices of `fuel` reductions; return its output, the number of
 * slices, and snapshots taken after the slices `take` selects.
 * @param {string} source @param {string} file @param {number} fuel
 * @param {(slice: number) => boolean} take
 */
function runInSlices(source, file, fuel, take) {
  boot();
  /** @type {string[]} */
  const out = [];
  const saved = consoleSinks.stdout;
  consoleSinks.stdout = (s) => out.push(s);
  try {
    const program = linkProgram(compileProgramText(source, { file }));
    const th = new Thread(program.top, []);
    const snaps = [];
    let slices = 0;
    for (; slices < 1e7; slices++) {
      const r = runSlice(th, fuel);
      if (r === SLICE_DONE) break;
      assert.equal(r, SLICE_YIELD, `the program died: ${th.val}`);
      if (take(slices)) snaps.push({ bytes: Buffer.from(snapshotThread(th, program.env)).toString('base64'), prefix: out.join('') });
    }
    return { output: out.join(''), snaps, slices, envId: program.env.id };
  } finally {
    consoleSinks.stdout = saved;
  }
}

for (const name of readdirSync(corpus).filter((f) => f.endsWith('.scm')).sort()) {
  test(`${name}: every snapshot resumes in a fresh process to the uninterrupted output`, () => {
    const source = readFileSync(path.join(corpus, name), 'utf8');
    const whole = runInSlices(source, name, 1e9, () => false);
    assert.ok(whole.output.length > 0, 'the program prints something');
    const counted = runInSlices(source, name, 3, () => false);
    assert.equal(counted.output, whole.output, 'slicing does not change the output');
    assert.ok(counted.slices >= 5, `enough snapshot points (${counted.slices})`);
    // an even sample of the slice boundaries, always including the first and the last
    const step = Math.max(1, Math.ceil(counted.slices / MAX_SNAPSHOTS));
    const sliced = runInSlices(source, name, 3, (i) => i % step === 0 || i === counted.slices - 1);
    const chosen = sliced.snaps;
    const dir = mkdtempSync(path.join(os.tmpdir(), 'termite-snap-'));
    try {
      const jobFile = path.join(dir, 'job.json');
      writeFileSync(jobFile, JSON.stringify({ source, file: name, envId: sliced.envId, snapshots: chosen.map((s) => s.bytes) }));
      const stdout = execFileSync(process.execPath, [path.join(here, 'helpers', 'resume-snapshots.js'), jobFile], { encoding: 'utf8', timeout: 120000, maxBuffer: 64 << 20 });
      const results = stdout.trim().split('\n').map((l) => JSON.parse(l));
      assert.equal(results.length, chosen.length);
      results.forEach((r, i) => {
        assert.equal(r.error, undefined, `snapshot ${i}: ${r.error}`);
        assert.equal(chosen[i].prefix + r.output, whole.output, `snapshot ${i} resumed to a different output`);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
