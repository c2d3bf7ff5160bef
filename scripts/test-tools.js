// @ts-check
/**
 * The system tools that some test suites need, how to tell whether this machine has
 * them, and the command that installs each (Debian's package names, as .ci/run installs
 * them). scripts/test-all.js skips a suite whose tools are missing and says why.
 *
 * Invariants: a tool is looked for the way its suite will run it — on PATH (make, cc,
 * clang), or as the Chromium the browser tests launch (CHROMIUM, else a Chromium on
 * PATH); clang counts only if it links a libFuzzer program, which is what the fuzz
 * suite does (clang without libclang-rt is a common half-install). Every probe is
 * bounded in time.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** @typedef {'make' | 'cc' | 'libfuzzer' | 'chromium'} ToolName */

/**
 * @typedef {object} MissingTool
 * @property {ToolName} name
 * @property {string} what what is needed, for a person
 * @property {string} why what was looked for and not found
 * @property {string} install the command that installs it (Debian)
 */

/** An executable named `name` on PATH, or null. @param {string} name */
export function onPath(name) {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const p = path.join(dir, name);
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch { /* not here */ }
  }
  return null;
}

/** The Chromium the browser tests would launch, or null. */
export function findChromium() {
  if (process.env.CHROMIUM) return existsSync(process.env.CHROMIUM) ? process.env.CHROMIUM : null;
  return onPath('chromium') ?? onPath('chromium-browser');
}

/** Whether clang links a libFuzzer program (bounded: 60 s). */
function clangLinksLibFuzzer() {
  const clang = onPath('clang');
  if (!clang) return 'clang is not on PATH';
  const dir = mkdtempSync(path.join(os.tmpdir(), 'termite-probe-'));
  try {
    const src = path.join(dir, 'probe.c');
    writeFileSync(src, '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n');
    const r = spawnSync(clang, ['-fsanitize=fuzzer', src, '-o', path.join(dir, 'probe')], { encoding: 'utf8', timeout: 60_000 });
    if (r.status === 0) return null;
    return `clang cannot link a libFuzzer program: ${(r.stderr || r.error?.message || '').trim().split('\n').pop()}`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** @type {Record<ToolName, {what: string, install: string, probe: () => string | null}>} probe: null when present, else why not */
const TOOLS = {
  make: { what: 'make', install: 'apt-get install make', probe: () => (onPath('make') ? null : 'make is not on PATH') },
  cc: { what: 'a C compiler with AddressSanitizer (cc)', install: 'apt-get install build-essential', probe: () => (onPath(process.env.CC ?? 'cc') ? null : `${process.env.CC ?? 'cc'} is not on PATH`) },
  libfuzzer: { what: 'clang with libFuzzer', install: 'apt-get install clang libclang-rt-14-dev', probe: clangLinksLibFuzzer },
  chromium: { what: 'Chromium', install: 'apt-get install chromium (or set CHROMIUM=/path/to/chromium)', probe: () => (findChromium() ? null : 'no chromium on PATH and CHROMIUM is not set') },
};

/** @type {Map<ToolName, string | null>} each probe runs once per process */
const seen = new Map();

/**
 * The tools of `names` that this machine lacks.
 * @param {ToolName[]} names @returns {Promise<MissingTool[]>}
 */
export async function missingTools(names) {
  /** @type {MissingTool[]} */
  const missing = [];
  for (const name of names) {
    if (!seen.has(name)) seen.set(name, TOOLS[name].probe());
    const why = seen.get(name);
    if (why) missing.push({ name, what: TOOLS[name].what, why, install: TOOLS[name].install });
  }
  return missing;
}
