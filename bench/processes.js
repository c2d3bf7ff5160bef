// @ts-check
/**
 * The benchmarks of processes on one node: the process ring (seed 0 and 1,000,000), same-node ping-pong,
 * the Linda out/in ping-pong, and idle bytes per process — each program run with
 * `termite-node run` in its own OS process (rounds: medians), Erlang/OTP's figures
 * measured in the same run beside them.
 *
 *   node bench/processes.js [PREFIX]
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Reporter, prefixFromArgv, runChild, summarize } from './lib/index.js';
import { runErlangBenchmarks } from './erlang/run-erlang.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const bin = path.join(here, '..', 'node-daemon', 'bin', 'termite-node.js');
const rep = new Reporter(prefixFromArgv());
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

/**
 * Run a program `rounds` times; each prints one number on its last line.
 * @param {string} file @param {Record<string, string>} env
 */
async function measureProgram(file, env) {
  const samples = [];
  for (let i = 0; i < ROUNDS; i++) {
    const r = await runChild(process.execPath, [bin, 'run', path.join(here, 'programs', file)], { timeoutMs: 300000, env: { ...process.env, ...env } });
    if (r.code !== 0) throw new Error(`${file} failed (${r.code}): ${r.stderr.slice(0, 500)}`);
    samples.push(Number(r.stdout.trim().split('\n').pop()));
  }
  return summarize(samples);
}

/** @param {string} name @param {() => Promise<void>} f */
async function guarded(name, f) {
  try {
    await f();
  } catch (e) {
    rep.comment(`${name}: not measured: ${e instanceof Error ? e.message : e}`);
  }
}

for (const seed of [0, 1000000]) {
  const name = `ring.seed${seed}`;
  if (!rep.wants(name) && !rep.wants(`erlang.${name}`)) continue;
  if (rep.wants(name)) {
    await guarded(name, async () => {
      const st = await measureProgram('ring.scm', { SEED: String(seed) });
      rep.bench(name, st.median, 's', { stats: st, note: '250,000 processes, wall time from first spawn to last exit' });
    });
  }
  await runErlangBenchmarks(rep, [`erlang.${name}`]);
  rep.ratioComment(name, `erlang.${name}`, { max: 1, label: 'ours <= Erlang' });
}

if (rep.wants('pingpong.local') || rep.wants('erlang.pingpong.local')) {
  if (rep.wants('pingpong.local')) {
    await guarded('pingpong.local', async () => {
      const st = await measureProgram('pingpong.scm', {});
      rep.bench('pingpong.local', st.median, 'rt/s', { stats: st, note: '1,000,000 round trips of (pid . n)' });
    });
  }
  await runErlangBenchmarks(rep, ['erlang.pingpong.local']);
  rep.ratioComment('pingpong.local', 'erlang.pingpong.local', { min: 1, label: 'ours >= Erlang' });
}

if (rep.wants('linda.pingpong.local')) {
  await guarded('linda.pingpong.local', async () => {
    const st = await measureProgram('linda-pingpong.scm', {});
    rep.bench('linda.pingpong.local', st.median, 'pairs/s', { stats: st, note: 'S/Net PING/PONG through the C core store; S/Net (1986): 720-770 pairs/s' });
  });
}

if (rep.wants('processes.idle_bytes') || rep.wants('erlang.ring.idle_bytes')) {
  if (rep.wants('processes.idle_bytes')) {
    await guarded('processes.idle_bytes', async () => {
      const r = await runChild(process.execPath, ['--expose-gc', path.join(here, 'idle-bytes.js')], { timeoutMs: 120000 });
      if (r.code !== 0) throw new Error(r.stderr.slice(0, 500));
      rep.bench('processes.idle_bytes', Number(r.stdout.trim()), 'bytes', { note: 'JS heap + core bytes per process blocked in a receive, over 100,000' });
    });
  }
  await runErlangBenchmarks(rep, ['erlang.ring.idle_bytes']);
}
