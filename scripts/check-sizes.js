#!/usr/bin/env node
// @ts-check
/**
 * The size rule of the source tree: no source file above 600 lines and no function
 * above 80 lines, unless the file or the function states why. A reader should be able to
 * hold one file's job and one function's steps in mind; where a thing is long for a
 * reason (one table of every opcode, one state machine), the reason is written where the
 * reader meets it:
 *
 *   - a file: a comment line containing `size:` in its first 40 lines;
 *   - a function: a comment line containing `size:` in the 3 lines above it or in its
 *     first 3 lines.
 *
 * Usage: `node scripts/check-sizes.js [PATH...]` (default: the source folders). Prints
 * one line per breach and a closing `N passed, N failed` line (files without and with a breach);
 * exits 1 if there is any breach.
 *
 * JavaScript functions are found with TypeScript's parser (every function, method,
 * arrow function and class static block); C functions by their shape (a definition
 * starts at column 0 and ends at the first `}` at column 0).
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const MAX_FILE_LINES = 600;
export const MAX_FUNCTION_LINES = 80;
const DEFAULT_PATHS = ['packages/core/src', 'packages/scheme/src', 'packages/runtime/src', 'packages/mesh/src',
  'node-daemon/src', 'node-daemon/bin', 'web/src', 'wasm-core/src', 'wasm-core/include', 'scripts', 'bench'];
const SOURCE = /\.(js|mjs|c|h)$/;

/** @param {string} p @returns {string[]} */
function sourceFiles(p) {
  const abs = path.resolve(root, p);
  if (!statSync(abs, { throwIfNoEntry: false })) return [];
  if (statSync(abs).isFile()) return SOURCE.test(abs) ? [abs] : [];
  return readdirSync(abs, { withFileTypes: true })
    .filter((e) => e.name !== 'node_modules' && !e.name.startsWith('.') && e.name !== 'dist' && e.name !== 'build')
    .flatMap((e) => sourceFiles(path.join(abs, e.name)));
}

/** @param {string[]} lines @param {number} from @param {number} to 0-based, inclusive */
function statesSize(lines, from, to) {
  for (let i = Math.max(0, from); i <= Math.min(lines.length - 1, to); i++) if (/size:/.test(lines[i])) return true;
  return false;
}

/**
 * Functions of a JavaScript file longer than the limit: [name, first line, lines].
 * @param {string} file @param {string} text @param {string[]} lines
 * @returns {{name: string, line: number, length: number}[]}
 */
function longJsFunctions(file, text, lines) {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  /** @type {{name: string, line: number, length: number}[]} */
  const out = [];
  /** @param {ts.Node} node */
  const visit = (node) => {
    if (ts.isFunctionLike(node) && /** @type {any} */ (node).body) {
      const first = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const last = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
      const length = last - first + 1;
      if (length > MAX_FUNCTION_LINES && !statesSize(lines, first - 3, first + 3)) {
        const n = /** @type {any} */ (node).name;
        out.push({ name: n ? n.getText(sf) : '(anonymous)', line: first + 1, length });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/**
 * Functions of a C file longer than the limit, found by shape: a line at column 0 that
 * is not a preprocessor line, a comment or a declaration ending in `;`, followed (on it
 * or within 3 lines) by `{`, up to the next `}` at column 0.
 * @param {string[]} lines
 */
function longCFunctions(lines) {
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (!/^[A-Za-z_][\w\s*,()[\]]*\(/.test(l) || /;\s*$/.test(l) || /^(typedef|struct|enum|union)\b.*[;{]\s*$/.test(l)) continue;
    let open = -1;
    for (let j = i; j < Math.min(lines.length, i + 4); j++) if (/\{\s*$/.test(lines[j]) || lines[j] === '{') { open = j; break; }
    if (open < 0) continue;
    let close = open;
    while (close < lines.length && lines[close] !== '}') close++;
    const length = close - i + 1;
    if (length > MAX_FUNCTION_LINES && !statesSize(lines, i - 3, i + 3)) {
      out.push({ name: (/(\w+)\s*\(/.exec(l) ?? ['', '?'])[1], line: i + 1, length });
    }
    i = close;
  }
  return out;
}

function main() {
  const args = process.argv.slice(2);
  const files = (args.length ? args : DEFAULT_PATHS).flatMap(sourceFiles);
  let failed = 0;
  let badFiles = 0;
  for (const file of files) {
    const before = failed;
    const text = readFileSync(file, 'utf8');
    const lines = text.split('\n');
    const rel = path.relative(root, file);
    if (lines.length > MAX_FILE_LINES && !statesSize(lines, 0, 39)) {
      console.log(`${rel}: ${lines.length} lines (limit ${MAX_FILE_LINES}; state the reason with a 'size:' comment in its header, or split it)`);
      failed++;
    }
    const long = file.endsWith('.h') ? [] : file.endsWith('.c') ? longCFunctions(lines) : longJsFunctions(file, text, lines);
    for (const f of long) {
      console.log(`${rel}:${f.line}: function ${f.name} is ${f.length} lines (limit ${MAX_FUNCTION_LINES}; state the reason with a 'size:' comment, or split it)`);
      failed++;
    }
    if (failed > before) badFiles++;
  }
  // one check per file: a file passes when neither it nor any of its functions breaches the rule
  console.log(`${files.length - badFiles} passed, ${badFiles} failed`);
  process.exit(failed ? 1 : 0);
}

main();
