#!/usr/bin/env node
// @ts-check
/**
 * `npm run attack`: the red-team suite at full scale (docs/security.md, "Attack suite").
 * It runs the attack tests — the same files `npm test` runs in their short version —
 * with TERMITE_ATTACK=full, which makes each use the issue's numbers (a 5,000,000-element
 * list loop with /health polled for 60 s, 128 idle handshakes held for 60 s while 19
 * nodes join, a fork bomb to the default per-peer limit, a 1,000,000-message flood,
 * 2,000 slowloris connections for 60 s, a list built forever under a 512 MiB heap, ...),
 * against real daemons on loopback. One file at a time (they measure latency, so they
 * must not share the machine), each under node's test runner with a wall-clock bound
 * (ATTACK_FILE_MINUTES, default 6; longer for the files in FILE_MINUTES): a file that
 * outlives it is killed with its whole
 * process group and counted as failed. Prints each file's output (its figures are the
 * `ℹ` diagnostics and `#` lines), then one line per file and the total,
 * `N passed, N failed`; the exit status is non-zero if anything failed.
 *
 * Environment: ATTACK_ONLY=name,... runs only the files whose path contains a name.
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The attack files, in the order the issue lists the attacks. */
const FILES = [
  'node-daemon/test/preemption.test.js',
  'packages/runtime/test/preemption.test.js', // 19 cases of 1,000 samples: see FILE_MINUTES
  'packages/runtime/test/copy-job.test.js',
  'node-daemon/test/preemption-copy.test.js',
  'node-daemon/test/heap-limit.test.js',
  'packages/runtime/test/heap-limit.test.js',
  'node-daemon/test/fair-share.test.js',
  'packages/runtime/test/fair-share.test.js',
  'packages/runtime/test/quotas.test.js',
  'node-daemon/test/no-silent-loss.test.js',
  'node-daemon/test/alloc-flood.test.js',
  'packages/runtime/test/send-backpressure.test.js',
  'node-daemon/test/admission-flood.test.js',
  'node-daemon/test/slowloris.test.js',
  'node-daemon/test/hostile.test.js',
  'packages/mesh/test/browser-routes.test.js',
  'node-daemon/test/restricted-routes.test.js',
  'node-daemon/test/dashboard-api.test.js',
  'node-daemon/test/cli.test.js',
];

const FILE_MS = Number(process.env.ATTACK_FILE_MINUTES ?? 6) * 60_000;
/**
 * Files that need longer than FILE_MS at full scale, and their bound (minutes): the
 * event-loop sampling of the runtime's preemption cases takes 20–40 ms a sample on a
 * loaded machine, 1,000 samples for each of 19 cases.
 * @type {Record<string, number>}
 */
const FILE_MINUTES = { 'packages/runtime/test/preemption.test.js': 16 };
const only = process.env.ATTACK_ONLY?.split(',');

/** @type {import('node:child_process').ChildProcess | null} the file running now */
let current = null;
for (const sig of /** @type {const} */ (['SIGINT', 'SIGTERM'])) {
  process.on(sig, () => {
    try { if (current?.pid) process.kill(-current.pid, 'SIGKILL'); } catch { /* gone */ }
    process.exit(1);
  });
}

console.log(`attack suite (TERMITE_ATTACK=full), ${new Date().toISOString()}, load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}, ${os.cpus().length} CPUs, node ${process.version}`);
/** @type {string[]} */
const lines = [];
let passed = 0;
let failed = 0;
const t0 = performance.now();
for (const file of FILES) {
  if (only && !only.some((o) => file.includes(o))) continue;
  console.log(`== ${file}`);
  const s0 = performance.now();
  const { code, output, timedOut } = await run(file, Math.max(FILE_MS, (FILE_MINUTES[file] ?? 0) * 60_000));
  const seconds = ((performance.now() - s0) / 1000).toFixed(1);
  const pass = Number(/^ℹ pass (\d+)$/m.exec(output)?.[1] ?? 0);
  const fail = Number(/^ℹ fail (\d+)$/m.exec(output)?.[1] ?? 0) + Number(/^ℹ cancelled (\d+)$/m.exec(output)?.[1] ?? 0);
  const broken = timedOut || (code !== 0 && fail === 0);
  passed += pass;
  failed += fail + (broken ? 1 : 0);
  lines.push(`${file}: ${pass} passed, ${fail} failed in ${seconds} s${timedOut ? ' (killed at its time bound)' : broken ? ` (exit status ${code})` : ''}`);
}
console.log(`== summary (${((performance.now() - t0) / 1000).toFixed(0)} s, load average now ${os.loadavg().map((x) => x.toFixed(2)).join(' ')})`);
for (const l of lines) console.log(l);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);

/**
 * Run one test file at full scale, its output streamed and kept.
 * @param {string} file @param {number} fileMs its time bound
 * @returns {Promise<{code: number, output: string, timedOut: boolean}>}
 */
function run(file, fileMs) {
  return new Promise((resolve) => {
    const args = ['--test', '--test-reporter=spec', `--test-timeout=${fileMs}`, file];
    // its own process group, so that a kill reaches the daemons and peers it started
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], detached: true, env: { ...process.env, TERMITE_ATTACK: 'full' } });
    current = child;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try { process.kill(-(/** @type {number} */ (child.pid)), 'SIGKILL'); } catch { /* gone */ }
    }, fileMs);
    let output = '';
    child.stdout.on('data', (d) => { output += d; process.stdout.write(d); });
    child.stderr.on('data', (d) => { output += d; process.stderr.write(d); });
    child.on('close', (code) => {
      clearTimeout(timer);
      current = null;
      resolve({ code: code ?? 1, output, timedOut });
    });
  });
}
