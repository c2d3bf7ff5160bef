#!/usr/bin/env node
// @ts-check
import { main } from '../src/cli.js';

main(process.argv.slice(2)).then(
  (code) => {
    if (typeof code === 'number') process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`termite-node: ${err && err.stack ? err.stack : err}\n`);
    process.exitCode = 2;
  },
);
