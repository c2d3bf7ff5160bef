#!/usr/bin/env node
// @ts-check
/**
 * `npm test`: every suite of the project, in order — the C core's tests (native, under
 * AddressSanitizer and UBSan), the fuzzers for a bounded time, the JavaScript unit tests
 * of every package, the type check (tsc --strict over the JSDoc-typed sources), the size
 * rule of the source tree (scripts/check-sizes.js), the multi-node tests and the
 * end-to-end tests in Chromium. Each
 * suite's own summary is parsed; the last line is the total, `N passed, N failed`, and
 * the exit status is non-zero if anything failed or a suite could not run.
 *
 * A suite that needs a system tool this machine lacks (a C compiler and make, clang with
 * libFuzzer, Chromium) is skipped, with the reason and the command that installs the
 * tool, and the run still passes; TERMITE_REQUIRE_ALL=1 (set by .ci/run) turns each such
 * skip — and each test a suite reports as skipped — into a failure, so CI runs everything.
 * The packaging suite (e2e/packaging.test.js) packs every workspace, installs the
 * tarballs into an empty directory and uses them as a user would.
 *
 * Environment: TERMITE_TEST_ONLY=c,unit,... runs only the named suites;
 * FUZZ_SECONDS overrides the fuzzing time (default 60 in CI, see wasm-core/Makefile).
 * Each suite has a wall-clock bound (SUITE_MINUTES, default 20): a suite that outlives it
 * (a test process that never exits, say) is killed with its whole process group and
 * counted as a failure, so a hang can never hold CI until its own limit.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { missingTools } from './test-tools.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PACKAGING_TEST = 'packaging.test.js';
const REQUIRE_ALL = process.env.TERMITE_REQUIRE_ALL === '1';

/**
 * A suite: `when` says whether it is in this checkout; `tools` names the system tools it
 * needs (scripts/test-tools.js), without which it is skipped (or, under
 * TERMITE_REQUIRE_ALL=1, failed).
 * @type {{name: string, cmd: string, args: string[], when?: () => boolean, tools?: import('./test-tools.js').ToolName[], parse: 'c'|'node'|'exit'}[]}
 */
const suites = [
  { name: 'c', cmd: 'make', args: ['-s', '-C', 'wasm-core', 'test'], when: () => existsSync(path.join(root, 'wasm-core/Makefile')), tools: ['make', 'cc'], parse: 'c' },
  { name: 'fuzz', cmd: 'make', args: ['-s', '-C', 'wasm-core', 'fuzz'], when: () => existsSync(path.join(root, 'wasm-core/Makefile')), tools: ['make', 'libfuzzer'], parse: 'c' },
  // the size rule (files ≤ 600 lines, functions ≤ 80, or a stated reason): one check per source file
  { name: 'sizes', cmd: process.execPath, args: [path.join('scripts', 'check-sizes.js')], parse: 'c' },
  // one check: tsc's exit status (its errors are printed; it has no pass count)
  { name: 'typecheck', cmd: process.execPath, args: [path.join('node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], parse: 'exit' },
  { name: 'unit', cmd: process.execPath, args: ['--test', '--test-reporter=spec', '--test-timeout=300000', ...unitTestDirs()], parse: 'node' },
  // Chromium (Debian's, driven by playwright-core) on loopback against real daemons; one file at a time
  { name: 'e2e', cmd: process.execPath, args: ['--test', '--test-reporter=spec', '--test-concurrency=1', '--test-timeout=180000', ...e2eTestFiles()], when: () => e2eTestFiles().length > 0, tools: ['chromium'], parse: 'node' },
  // the packages as a user gets them (its Chromium step skips itself without Chromium)
  { name: 'packaging', cmd: process.execPath, args: ['--test', '--test-reporter=spec', '--test-timeout=900000', path.join('e2e', PACKAGING_TEST)], when: () => existsSync(path.join(root, 'e2e', PACKAGING_TEST)), parse: 'node' },
];

/** e2e/*.test.js but the packaging test, its own suite (node --test does not expand globs on every Node version this project supports). */
function e2eTestFiles() {
  const dir = path.join(root, 'e2e');
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((f) => f.endsWith('.test.js') && f !== PACKAGING_TEST).sort().map((f) => path.join('e2e', f));
}

function unitTestDirs() {
  const dirs = ['packages/core/test', 'packages/scheme/test', 'packages/runtime/test', 'packages/mesh/test', 'node-daemon/test', 'web/test'];
  return dirs.filter((d) => existsSync(path.join(root, d)));
}

/** @type {import('node:child_process').ChildProcess | null} the suite running now */
let current = null;
for (const sig of /** @type {const} */ (['SIGINT', 'SIGTERM'])) {
  process.on(sig, () => {
    try { if (current?.pid) process.kill(-current.pid, 'SIGTERM'); } catch { /* gone */ }
    process.exit(1);
  });
}
const SUITE_MINUTES = Number(process.env.SUITE_MINUTES ?? 20);
const only = process.env.TERMITE_TEST_ONLY?.split(',');
let passed = 0;
let failed = 0;
const problems = [];
/** @type {string[]} what was skipped, and why */
const skipped = [];

for (const s of suites) {
  if (only && !only.includes(s.name)) continue;
  if (s.when && !s.when()) {
    console.log(`== ${s.name}: skipped (not present in this checkout)`);
    continue;
  }
  const missing = await missingTools(s.tools ?? []);
  if (missing.length > 0) {
    const why = missing.map((t) => `needs ${t.what} (${t.why}); install: ${t.install}`).join('; ');
    console.log(`== ${s.name}: skipped — ${why}`);
    skipped.push(`${s.name}: ${why}`);
    if (REQUIRE_ALL) {
      problems.push(`${s.name}: skipped, and TERMITE_REQUIRE_ALL=1 requires every suite`);
      failed++;
    }
    continue;
  }
  console.log(`== ${s.name}: ${s.cmd} ${s.args.join(' ')}`);
  const { code, output, timedOut } = await run(s.cmd, s.args);
  if (timedOut) {
    problems.push(`${s.name}: still running after ${SUITE_MINUTES} minutes; killed`);
    failed++;
    continue;
  }
  const counts = s.parse === 'c' ? parseC(output)
    : s.parse === 'node' ? parseNode(output)
    : code === 0 ? { passed: 1, failed: 0, skipped: 0 } : { passed: 0, failed: 1, skipped: 0 };
  if (counts === null) {
    problems.push(`${s.name}: no summary line in its output (exit ${code})`);
    failed++;
    continue;
  }
  passed += counts.passed;
  failed += counts.failed;
  if (counts.skipped > 0) {
    skipped.push(`${s.name}: ${counts.skipped} test(s) skipped (their reasons are in the suite's output above)`);
    if (REQUIRE_ALL) {
      problems.push(`${s.name}: ${counts.skipped} test(s) skipped, and TERMITE_REQUIRE_ALL=1 requires every test`);
      failed += counts.skipped;
    }
  }
  if (code !== 0 && counts.failed === 0) {
    problems.push(`${s.name}: exited with status ${code}`);
    failed++;
  }
}

for (const k of skipped) console.log(`skipped: ${k}`);
for (const p of problems) console.log(`problem: ${p}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);

/**
 * @param {string} cmd @param {string[]} args
 * @returns {Promise<{code: number, output: string, timedOut: boolean}>}
 */
function run(cmd, args) {
  return new Promise((resolve) => {
    // Its own process group, so that a kill reaches every test process it started.
    const child = spawn(cmd, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    current = child;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try { process.kill(-(/** @type {number} */ (child.pid)), 'SIGKILL'); } catch { /* already gone */ }
    }, SUITE_MINUTES * 60_000);
    let output = '';
    child.stdout.on('data', (d) => {
      output += d;
      process.stdout.write(d);
    });
    child.stderr.on('data', (d) => {
      output += d;
      process.stderr.write(d);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, output, timedOut });
    });
  });
}

/** @param {string} out */
function parseC(out) {
  const all = [...out.matchAll(/^(\d+) passed, (\d+) failed$/gm)];
  if (all.length === 0) return null;
  return all.reduce((acc, m) => ({ passed: acc.passed + Number(m[1]), failed: acc.failed + Number(m[2]), skipped: 0 }), { passed: 0, failed: 0, skipped: 0 });
}

/** @param {string} out */
function parseNode(out) {
  const pass = /^ℹ pass (\d+)$/m.exec(out) ?? /^# pass (\d+)$/m.exec(out);
  const fail = /^ℹ fail (\d+)$/m.exec(out) ?? /^# fail (\d+)$/m.exec(out);
  const skip = /^ℹ skipped (\d+)$/m.exec(out) ?? /^# skip (\d+)$/m.exec(out);
  if (!pass || !fail) return null;
  return { passed: Number(pass[1]), failed: Number(fail[1]), skipped: skip ? Number(skip[1]) : 0 };
}
