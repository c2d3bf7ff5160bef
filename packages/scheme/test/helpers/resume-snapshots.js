// @ts-check
/**
 * Child process for snapshot-resume.test.js: a fresh Node process that has never run
 * the program. It reads a job file { source, file, snapshots: [{bytes: base64}] },
 * compiles the program (the same text gives the same unit hashes), and resumes every
 * snapshot in an environment of its own — never running the program's top level —
 * printing one JSON line per snapshot: { output } or { error }.
 */
import { readFileSync } from 'node:fs';
import {
  boot, consoleSinks, compileProgramText, linkProgram, Environment, instantiate,
  restoreThread, runSlice, SLICE_DONE, SLICE_YIELD, describeError,
} from '@termite/scheme';

// `node --test test/` runs every .js file under test/, this one too, without a job file:
// there is nothing to resume then.
if (process.argv[2] === undefined) process.exit(0);
const job = JSON.parse(readFileSync(process.argv[2], 'utf8'));
boot();
const units = compileProgramText(job.source, { file: job.file });
const program = linkProgram(units, { envId: job.envId });
/** @type {string[]} */
let out = [];
consoleSinks.stdout = (s) => out.push(s);
for (const snap of job.snapshots) {
  out = [];
  const env = new Environment(job.envId);
  const inst = instantiate(program.wire, program.hash, env);
  try {
    const th = restoreThread(Buffer.from(snap, 'base64'), {
      env,
      resolveCode: (hash) => {
        if (hash === program.hash) return inst;
        throw new Error(`unknown code ${hash}`);
      },
    });
    let r;
    for (let i = 0; i < 1e6; i++) {
      r = runSlice(th, 100000);
      if (r !== SLICE_YIELD) break;
    }
    if (r !== SLICE_DONE) process.stdout.write(JSON.stringify({ error: describeError(th.val), output: out.join('') }) + '\n');
    else process.stdout.write(JSON.stringify({ output: out.join('') }) + '\n');
  } catch (e) {
    process.stdout.write(JSON.stringify({ error: String(e && /** @type {any} */ (e).stack) }) + '\n');
  }
}
