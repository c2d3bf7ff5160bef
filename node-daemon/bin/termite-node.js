#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * The `termite-node` command. A CommonJS script (bin/package.json), so that a standalone
 * `run` from a fresh start-up bundle (run-bundle-load.cjs) starts without Node's ES
 * module loader; every other command line, and a run without a fresh bundle, goes to
 * cli.js as an ES module. Exit status: what the command returns; 2 with the stack on
 * stderr for an error that escaped it.
 */
const { runFromBundle } = require('../src/run-bundle-load.cjs');

const argv = process.argv.slice(2);
/** @type {Promise<number|undefined>} */
let status;
try {
  status = runFromBundle(argv) ?? import('../src/cli.js').then((cli) => cli.main(argv));
} catch (e) {
  status = Promise.reject(e);
}
status.then(
  (code) => {
    if (typeof code === 'number') process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`termite-node: ${err && err.stack ? err.stack : err}\n`);
    process.exitCode = 2;
  },
);
