// @ts-check
/**
 * A short, bounded rendering of a form for error messages ("let: bad binding in
 * (let ((x)) x)"). Not the printer: it abbreviates long or deep data with "..." so a
 * message about a 100,000-element form stays one line, and it shows renamed
 * identifiers (macro output) by their original name.
 */
import { Pair, Sym, Char, Flonum, Ratnum } from '../values.js';

const MAX_CHARS = 120;
const MAX_DEPTH = 6;

/** @param {any} x @returns {string} */
export function showDatum(x) {
  const out = { s: '', full: false };
  write(x, 0, out);
  return out.full ? out.s.slice(0, MAX_CHARS) + ' ...' : out.s;
}

/** @param {{s: string, full: boolean}} out @param {string} s */
function emit(out, s) {
  if (out.full) return;
  out.s += s;
  if (out.s.length > MAX_CHARS) out.full = true;
}

/** @param {any} x @param {number} depth @param {{s: string, full: boolean}} out */
function write(x, depth, out) {
  if (out.full) return;
  if (x instanceof Pair) {
    if (depth >= MAX_DEPTH) return emit(out, '(...)');
    emit(out, '(');
    let first = true;
    let n = 0;
    for (; x instanceof Pair; x = x.cdr) {
      if (!first) emit(out, ' ');
      first = false;
      if (++n > 12 || out.full) return emit(out, '...)');
      write(x.car, depth + 1, out);
    }
    if (x !== null) {
      emit(out, ' . ');
      write(x, depth + 1, out);
    }
    return emit(out, ')');
  }
  if (Array.isArray(x)) {
    if (depth >= MAX_DEPTH) return emit(out, '#(...)');
    emit(out, '#(');
    x.slice(0, 12).forEach((e, i) => {
      if (i) emit(out, ' ');
      write(e, depth + 1, out);
    });
    return emit(out, x.length > 12 ? ' ...)' : ')');
  }
  emit(out, atom(x));
}

/** @param {any} x @returns {string} */
function atom(x) {
  if (x === null) return '()';
  if (x === true) return '#t';
  if (x === false) return '#f';
  if (typeof x === 'string') return JSON.stringify(x);
  if (typeof x === 'number' || typeof x === 'bigint') return String(x);
  if (x instanceof Sym) return x.name;
  if (x instanceof Char) return `#\\${String.fromCodePoint(x.code)}`;
  if (x instanceof Flonum) return Number.isInteger(x.v) ? `${x.v}.0` : String(x.v);
  if (x instanceof Ratnum) return `${x.num}/${x.den}`;
  if (x && typeof x === 'object' && x.sym instanceof Sym) return x.sym.name; // a renamed identifier
  if (x instanceof Uint8Array) return `#u8(${Array.from(x).join(' ')})`;
  if (x && typeof x === 'object' && typeof x.name === 'string') return `#!${x.name}`;
  return String(x);
}
