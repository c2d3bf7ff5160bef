// @ts-check
/**
 * Programs that report by tagged lines: a test program writes `(tag value ...)` lines
 * (its `show`), and the test checks each tag's line. One run-and-check for the
 * multi-daemon Linda tests, in place of a block of asserts repeated after each run.
 *
 * Invariant: a run whose exit status is not 0 fails with the program's whole output; a
 * tag the program never wrote fails naming it, with the output.
 */
import assert from 'node:assert/strict';
import { runProgram } from './daemons.js';

/**
 * The line of the program's output that starts with `(tag `, or a message naming the
 * missing tag with the output (so an assert on it shows what came instead).
 * @param {{stdout: string, stderr: string}} r @param {string} tag
 */
export function lineOf(r, tag) {
  return r.stdout.split('\n').find((l) => l.startsWith(`(${tag} `)) ?? `missing ${tag}: ${r.stdout}\n${r.stderr}`;
}

/**
 * Run `program` (runProgram's options) and check its tagged lines: a string is the
 * whole line expected, a RegExp must match it; `notes` names what a line shows, for the
 * failure message.
 * @param {string} program @param {Parameters<typeof runProgram>[1]} opts
 * @param {Record<string, string | RegExp>} expected @param {Record<string, string>} [notes]
 */
export async function runTagged(program, opts, expected, notes = {}) {
  const r = await runProgram(program, opts);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  for (const [tag, want] of Object.entries(expected)) {
    const line = lineOf(r, tag);
    if (want instanceof RegExp) assert.match(line, want, notes[tag]);
    else assert.equal(line, want, notes[tag]);
  }
  return r;
}
