#!/usr/bin/env node
// @ts-check
/**
 * Runs the benchmark scripts (docs/design.md §5: measured, not claimed).
 *
 *   npm run bench                       every script
 *   npm run bench -- PREFIX             only figures whose names start with PREFIX
 *   npm run bench -- PREFIX --runs 3    the selection 3 times, then each figure's median
 *   npm run bench -- --json out.json    also write every figure of every run as JSON
 *   npm run bench -- --list             the scripts and their time limits
 *
 * Each script is run as `node bench/<file> PREFIX` in its own process (one at a time,
 * so they do not disturb each other's timings), filters its own figures by the prefix,
 * and prints `bench <name> <value> <unit>` lines and `# comment` lines, which are
 * passed through here unchanged. A script still running after its time limit is
 * stopped by PID (its process group), reported, and the run goes on.
 */
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { existsSync, writeFileSync } from 'node:fs';
import { loadavg, cpus } from 'node:os';
import { runChild, parseBenchLine, summarize, formatNumber } from './lib/index.js';

/**
 * The benchmark scripts, in the order they run. To add one: one line here, a file in
 * bench/ that takes the prefix as its first argument.
 * @type {{file: string, limitS: number}[]}
 */
const SCRIPTS = [
  { file: 'core.js', limitS: 300 }, // the C core: core.*, jsref.*
  { file: 'scheme.js', limitS: 900 }, // Scheme: scheme.*, js.*, biwa.*
  { file: 'erlang/run-erlang.js', limitS: 600 }, // erlang.* (until ring/pingpong/mesh scripts run them beside ours)
  { file: 'processes.js', limitS: 900 }, // processes on one node: ring.*, pingpong.local, linda.*, processes.idle_bytes
  { file: 'local-send-copy.js', limitS: 300 }, // a local !'s copy against the one-call copy: copy.*
  { file: 'linda.js', limitS: 600 }, // tuple spaces across nodes: linda.central.*, linda.rpc.*, linda.durable.*, beside pingpong.ws.2node, raw.ws.*, sqlite.insert
  { file: 'mesh.js', limitS: 900 }, // the mesh: pingpong.ws.2node, raw.*, remote_spawn.*, migrate.*, payload.*
  { file: 'messengers.js', limitS: 900 }, // (termite messengers): messengers.*, beside pingpong.local, pingpong.800.ws.2node, sequential.*
  { file: 'libs.js', limitS: 900 }, // versioned libraries: libs.interpreted.*, libs.first_install.*, libs.steady.*, libs.hot_update*
  { file: 'browser.js', limitS: 420 }, // browsers: pingpong.*.browser, raw.*.browser, *.tabs, first_migration.browser, tabs.joined
  { file: 'scale.js', limitS: 3000 }, // the simulated internet (root, network namespaces): scale.join.*, scale.rtt.hops.*, scale.nat.*, scale.churn.*, scale.tabs.* (100 tabs took 8 min at load 100-170)
];

const here = dirname(fileURLToPath(import.meta.url));

/** Ratio comments printed by the scripts (Reporter.ratioComment and per-round ratios). */
const RATIO_LINE = /^# ratio (\S+) \/ (\S+)( per interleaved round:)? (?:= |median )([\d.]+)/;

/** @param {string[]} argv */
function parseArgs(argv) {
  let prefix = '';
  let runs = 1;
  /** @type {string|null} */
  let json = null;
  let list = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--runs') runs = Math.max(1, Math.min(20, Number(argv[++i]) || 1));
    else if (a === '--json') json = argv[++i] ?? null;
    else if (a === '--list') list = true;
    else if (a.startsWith('--')) throw new Error(`unknown option ${a}`);
    else prefix = a;
  }
  return { prefix, runs, json, list };
}

function loadText() {
  return `load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`;
}

async function main() {
  const { prefix, runs, json, list } = parseArgs(process.argv.slice(2));
  if (list) {
    for (const s of SCRIPTS) console.log(`bench/${s.file}  (time limit ${s.limitS} s)`);
    return 0;
  }
  /** @type {Map<string, {unit: string, values: number[]}>} */
  const figures = new Map();
  /** @type {{run: number, script: string, name: string, value: number, unit: string}[]} */
  const rows = [];
  /** @type {Map<string, number[]>} ratio comments ("# ratio a / b = x") by pair */
  const ratios = new Map();
  let failures = 0;
  console.log(`# npm run bench${prefix ? ' -- ' + prefix : ''}: node ${process.version}, ${new Date().toISOString()}`);
  console.log(`# machine: ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}; ${loadText()} (other work on a shared machine inflates figures)`);
  for (let run = 1; run <= runs; run++) {
    if (runs > 1) console.log(`# run ${run} of ${runs}`);
    for (const s of SCRIPTS) {
      const path = join(here, s.file);
      if (!existsSync(path)) {
        console.log(`# bench/${s.file}: missing, skipped`);
        continue;
      }
      const r = await runChild(process.execPath, [path, prefix], {
        timeoutMs: s.limitS * 1000,
        onLine: (line, stream) => {
          if (stream === 'stderr') {
            process.stderr.write(`${line}\n`);
            return;
          }
          console.log(line);
          const rm = RATIO_LINE.exec(line);
          if (rm) {
            const key = `${rm[1]} / ${rm[2]}${rm[3] ? ' per interleaved round' : ''}`;
            ratios.set(key, [...(ratios.get(key) ?? []), Number(rm[4])]);
          }
          const b = parseBenchLine(line);
          if (!b) return;
          rows.push({ run, script: s.file, ...b });
          const f = figures.get(b.name) ?? { unit: b.unit, values: [] };
          f.values.push(b.value);
          figures.set(b.name, f);
        },
      });
      if (r.timedOut) {
        failures++;
        console.log(`# bench/${s.file}: stopped at its time limit (${s.limitS} s); figures after that point are missing`);
      } else if (r.code !== 0) {
        failures++;
        console.log(`# bench/${s.file}: exited with ${r.code ?? r.signal}`);
      }
    }
  }
  console.log(`# finished ${new Date().toISOString()}; ${loadText()}`);
  if (runs > 1 && figures.size > 0) {
    console.log(`# medians of ${runs} runs (min-max, spread = (max-min)/median):`);
    for (const [name, f] of figures) {
      const st = summarize(f.values);
      console.log(`# median ${name} ${formatNumber(st.median)} ${f.unit}  (${formatNumber(st.min)}-${formatNumber(st.max)}, ${(st.spread * 100).toFixed(1)}%, n=${f.values.length})`);
    }
  }
  if (runs > 1 && ratios.size > 0) {
    console.log(`# ratios, median of ${runs} runs (each computed within one run):`);
    for (const [key, vs] of ratios) {
      const st = summarize(vs);
      console.log(`# median ratio ${key} = ${formatNumber(st.median)}  (${formatNumber(st.min)}-${formatNumber(st.max)}, n=${vs.length})`);
    }
  }
  if (json) writeFileSync(json, JSON.stringify({ prefix, runs, node: process.version, date: new Date().toISOString(), rows, ratios: Object.fromEntries(ratios) }, null, 1));
  if (figures.size === 0) console.log(`# no figure printed (no benchmark name starts with "${prefix}", or all were skipped)`);
  return failures > 0 ? 1 : 0;
}

process.exitCode = await main();
