#!/usr/bin/env node
// @ts-check
/**
 * Where the time of one core.out_in pair goes (BENCHMARKS.md, "The C core"): the same
 * out(['ping', 42]) + inp(['ping', formal.integer]) loop as bench/core.js, and its
 * parts measured alone.
 *
 *   node bench/core-parts.js
 *
 * Prints `bench core.parts.<part> <ns> ns`: the fastest of ROUNDS rounds of N pairs, in
 * CPU time (the machine adds noise and never removes it, so the minimum is the figure
 * least disturbed). Parts:
 *   api     the pair through the JS API (what core.out_in measures)
 *   wasm    the two wasm calls alone, tuple and template bytes already in memory
 *   encode  encoding ['ping', 42] into the transfer area
 *   decode  decoding the 8 result bytes
 *   jsref   the pure-JS reference's pair (jsref.out_in)
 */
import { loadCore, formal } from '@termite/core';
import { encodeInto, decodeFrom } from '../packages/core/src/codec.js';
import { RefSpace, refFormal } from './jsref-tuplespace.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const N = Number(process.env.BENCH_PAIRS ?? 500_000);

const core = await loadCore();
const space = core.createSpace();
const tmpl = ['ping', formal.integer];
const TUPLE = new Uint8Array([0x82, 0x64, 0x70, 0x69, 0x6e, 0x67, 0x18, 42]);
const TEMPLATE = new Uint8Array([0x82, 0x64, 0x70, 0x69, 0x6e, 0x67, 0xd9, 0xa0, 0x20, 1]);
const ref = new RefSpace();
const rtmpl = ['ping', refFormal.integer];

/** @param {string} part @param {() => void} run N pairs */
function report(part, run) {
  let best = Infinity;
  for (let r = 0; r < ROUNDS; r++) {
    const u0 = process.cpuUsage();
    run();
    const u1 = process.cpuUsage();
    best = Math.min(best, ((u1.user + u1.system - u0.user - u0.system) * 1000) / N);
  }
  console.log(`bench core.parts.${part} ${best.toFixed(1)} ns`);
}

report('api', () => {
  for (let i = 0; i < N; i++) {
    space.out(['ping', 42]);
    if (space.inp(tmpl) === undefined) throw new Error('lost a tuple');
  }
});

// the bytes at fixed places of the transfer area, past anything a result overwrites
const ex = core.ex, at = core.data + 4096;
core.u8.set(TUPLE, at);
core.u8.set(TEMPLATE, at + 64);
report('wasm', () => {
  for (let i = 0; i < N; i++) {
    if (ex.tm_space_out(core.p, space.id, at, TUPLE.length, 0) !== 0) throw new Error('out failed');
    if (ex.tm_space_inp(core.p, space.id, at + 64, TEMPLATE.length, core.outResult) !== 0) throw new Error('lost a tuple');
  }
});

report('encode', () => {
  for (let i = 0; i < N; i++) if (encodeInto(['ping', 42], core.u8, core.dv, at + 128, at + 1024) < 0) throw new Error('no room');
});

core.u8.set(TUPLE, at + 128);
report('decode', () => {
  for (let i = 0; i < N; i++) if (/** @type {unknown[]} */ (decodeFrom(core.u8, at + 128, at + 128 + TUPLE.length)).length !== 2) throw new Error('bad decode');
});

report('jsref', () => {
  for (let i = 0; i < N; i++) {
    ref.out(['ping', 42]);
    if (ref.inp(rtmpl) === undefined) throw new Error('lost a tuple');
  }
});
core.destroy();
