#!/usr/bin/env node
// @ts-check
/**
 * Where a process's CPU went, from a V8 CPU profile (`node --cpu-prof`): self time per
 * function, largest first, as ms and as a share of the busy (non-idle) time. Used for
 * the stage tables of BENCHMARKS.md (the mesh's "Large messages" section):
 *
 *   node --cpu-prof --cpu-prof-dir=DIR node-daemon/bin/termite-node.js --port 0 --insecure --token T
 *   (run the workload against it, e.g. bench/mesh-node.js with MESH_GROUPS=payload64k; stop it with SIGINT)
 *   node bench/profile-summary.js DIR/CPU.*.cpuprofile [TOP]
 *
 * Reads one file and prints; nothing else (bounded by the profile's own size).
 */
import { readFileSync } from 'node:fs';

const [file, topS] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: profile-summary.js FILE.cpuprofile [TOP]\n');
  process.exit(2);
}
/** @type {{nodes: {id: number, callFrame: {functionName: string, url: string, lineNumber: number}}[], samples: number[], timeDeltas: number[]}} */
const profile = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
/** @type {Map<string, number>} µs of self time per function */
const self = new Map();
let total = 0;
for (let i = 0; i < profile.samples.length; i++) {
  const node = byId.get(profile.samples[i]);
  const dt = profile.timeDeltas[i] ?? 0;
  if (!node) continue;
  total += dt;
  const cf = node.callFrame;
  const where = cf.url ? ` ${cf.url.split('/').slice(-2).join('/')}:${cf.lineNumber + 1}` : '';
  const key = `${cf.functionName || '(anonymous)'}${where}`;
  self.set(key, (self.get(key) ?? 0) + dt);
}
const idle = self.get('(idle)') ?? 0;
const busy = total - idle;
process.stdout.write(`profile ${(total / 1000).toFixed(0)} ms, idle ${(idle / 1000).toFixed(0)} ms, busy ${(busy / 1000).toFixed(0)} ms\n`);
const rows = [...self].filter(([k]) => k !== '(idle)').sort((a, b) => b[1] - a[1]).slice(0, Number(topS ?? 25));
for (const [k, v] of rows) process.stdout.write(`${(v / 1000).toFixed(1).padStart(9)} ms ${((100 * v) / busy).toFixed(1).padStart(5)}%  ${k}\n`);
