// @ts-check
/**
 * The two-pass encoder's second pass: writes a value whose shared objects findShared
 * (sharing.js) has found, in preorder with an explicit work stack.
 *
 * Invariants: no recursion (a 100,000-frame continuation or a 1,000,000-element list is
 * written by the loop); an object counted twice by findShared is written once, marked
 * with tag 28, and referred to by tag 29 afterwards, in the order the decoder meets
 * them; a list is one flat array up to its first shared pair, and a chain of frames one
 * flat array up to its first shared frame (which becomes the chain's tail). The bytes
 * are those of the one-pass encoder (encode.js) for every value that one accepts.
 * Atoms (flonums, symbols, characters, rationals, special constants) are written by
 * emitAtom, which both encoders share.
 */
import {
  Pair, Flonum, Ratnum, Sym, Char, Closure, Frame, Box, Record, RecordType, Values,
  ErrorObject, Special, MString, Compnum, VOID, EOF, DEFAULT, UNIT_HASH, UNASSIGNED,
} from '../values.js';
import {
  TAG_SHAREABLE, TAG_SHAREDREF, TAG_RATIONAL, TAG_SYMBOL, TAG_UNINTERNED, TAG_CHAR, TAG_LIST, TAG_DOTTED,
  TAG_VOID, TAG_EOF, TAG_DEFAULT, TAG_UNIT_HASH, TAG_UNASSIGNED, TAG_VALUES, TAG_RECORD_TYPE, TAG_RECORD,
  TAG_CLOSURE, TAG_FRAMES, TAG_BOX, TAG_ERROR, TAG_CODE, TAG_MUTABLE_STRING, TAG_COMPLEX,
} from './tags.js';
import { CodecError } from './codec-error.js';
import { extensionOf } from './registry.js';
import { codeRefOf, isCodeRef } from './code-ref.js';

/** @typedef {import('./writer.js').CborWriter} CborWriter */

/**
 * Emit in preorder with an explicit work stack. Numbers, text, booleans, shared marks,
 * extension values, lists, vectors, atoms and bytevectors (what messages are made of)
 * are written here; code (emitCode) and the other structures (emitStructure) by the
 * functions after it.
 * @param {any} root @param {CborWriter} w @param {Set<any> | null} shared
 */
export function emit(root, w, shared) {
  /** @type {Map<any, number>} */
  const marks = shared === null ? EMPTY_MARKS : new Map();
  let nextMark = 0;
  const work = [root];
  while (work.length > 0) {
    const x = work.pop();
    switch (typeof x) {
      case 'number':
        w.int(x);
        continue;
      case 'string':
        w.text(x);
        continue;
      case 'boolean':
        w.bool(x);
        continue;
      case 'bigint':
        w.bigint(x);
        continue;
      case 'object':
        break;
      default:
        throw new CodecError(`cannot serialize a JavaScript ${typeof x}`);
    }
    if (x === null) {
      w.nil();
      continue;
    }
    // objects with identity (only findShared's objects can be shared: atoms below never are)
    if (shared !== null && shared.has(x)) {
      const m = marks.get(x);
      if (m !== undefined) {
        w.tag(TAG_SHAREDREF);
        w.head(0, m);
        continue;
      }
      marks.set(x, nextMark++);
      w.tag(TAG_SHAREABLE);
    }
    // pids, tags, node references...: looked up first, the commonest objects in messages
    const ext = extensionOf(x);
    if (ext !== undefined) {
      const fields = ext.encode(x);
      w.tag(ext.tag);
      if (ext.single) {
        work.push(fields[0]);
        continue;
      }
      w.array(fields.length);
      for (let i = fields.length - 1; i >= 0; i--) work.push(fields[i]);
      continue;
    }
    if (x instanceof Pair) {
      emitList(x, w, work, shared);
      continue;
    }
    if (Array.isArray(x)) {
      w.array(x.length);
      for (let i = x.length - 1; i >= 0; i--) work.push(x[i]);
      continue;
    }
    if (emitAtom(x, w)) continue;
    if (x instanceof Uint8Array) {
      w.byteString(x);
      continue;
    }
    if (x instanceof MString) {
      emitMutableString(x, w);
      continue;
    }
    if (emitCode(x, w, work, shared)) continue;
    emitStructure(x, w, work);
  }
}

/**
 * A list, as one flat array up to its first shared pair (which becomes the tail of an
 * improper list): the head is written, then its leading atoms, the other elements
 * pushed on the work stack.
 * @param {Pair} x @param {CborWriter} w @param {any[]} work @param {Set<any> | null} shared
 */
function emitList(x, w, work, shared) {
  const elems = [x.car];
  let p = x.cdr;
  while (p instanceof Pair && (shared === null || !shared.has(p))) {
    elems.push(p.car);
    p = p.cdr;
  }
  if (p === null) {
    w.tag(TAG_LIST);
    w.array(elems.length);
  } else {
    w.tag(TAG_DOTTED);
    w.array(elems.length + 1);
    work.push(p);
  }
  // the leading numbers, text and booleans written now (a list of atoms, the common
  // big message, never touches the work stack); the rest pushed, to be written in order
  let k = 0;
  for (; k < elems.length; k++) {
    const e = elems[k];
    if (typeof e === 'number') w.int(e);
    else if (typeof e === 'string') w.text(e);
    else if (typeof e === 'boolean') w.bool(e);
    else break;
  }
  for (let i = elems.length - 1; i >= k; i--) work.push(elems[i]);
}

/**
 * A closure, a chain of continuation frames, one frame's body, or a code reference;
 * false if x is none of these.
 * @param {any} x @param {CborWriter} w @param {any[]} work @param {Set<any> | null} shared
 */
function emitCode(x, w, work, shared) {
  if (x instanceof Closure) {
    const fv = x.fv ?? [];
    w.tag(TAG_CLOSURE);
    w.array(2 + fv.length);
    for (let i = fv.length - 1; i >= 0; i--) work.push(fv[i]);
    work.push(x.lam.index);
    work.push(codeRefOf(x.lam));
    return true;
  }
  if (x instanceof Frame) {
    // a chain of frames, flat until a shared frame (which becomes the tail)
    const frames = [x];
    let f = x.next;
    while (f !== null && (shared === null || !shared.has(f))) {
      frames.push(f);
      f = f.next;
    }
    w.tag(TAG_FRAMES);
    w.array(frames.length + 1);
    work.push(f);
    for (let i = frames.length - 1; i >= 0; i--) work.push(new FrameBody(frames[i]));
    return true;
  }
  if (x instanceof FrameBody) {
    const fr = x.frame;
    w.array(3 + fr.s.length);
    for (let i = fr.s.length - 1; i >= 0; i--) work.push(fr.s[i]);
    work.push(fr.label);
    work.push(fr.lam.index);
    work.push(codeRefOf(fr.lam));
    return true;
  }
  if (isCodeRef(x)) {
    w.tag(TAG_CODE);
    w.array(2);
    w.text(x.hash);
    w.text(x.env);
    return true;
  }
  return false;
}

/**
 * A box, record type, record, error object or multiple values; any other object cannot
 * be serialized.
 * @param {any} x @param {CborWriter} w @param {any[]} work
 */
function emitStructure(x, w, work) {
  if (x instanceof Box) {
    w.tag(TAG_BOX);
    work.push(x.v);
    return;
  }
  if (x instanceof RecordType) {
    w.tag(TAG_RECORD_TYPE);
    w.array(3);
    w.text(x.uid);
    w.text(x.name);
    w.array(x.fields.length);
    for (const f of x.fields) w.text(f);
    return;
  }
  if (x instanceof Record) {
    w.tag(TAG_RECORD);
    w.array(1 + x.f.length);
    for (let i = x.f.length - 1; i >= 0; i--) work.push(x.f[i]);
    work.push(x.rtd);
    return;
  }
  if (x instanceof ErrorObject) {
    w.tag(TAG_ERROR);
    w.array(5);
    work.push(x.loc);
    work.push(x.irritants);
    work.push(x.message);
    work.push(x.who);
    work.push(x.kind);
    return;
  }
  if (x instanceof Values) {
    w.tag(TAG_VALUES);
    w.array(x.vals.length);
    for (let i = x.vals.length - 1; i >= 0; i--) work.push(x.vals[i]);
    return;
  }
  throw new CodecError(`cannot serialize ${x.constructor?.name ?? 'this object'}`);
}

/**
 * Emit an object that is a value without identity (a flonum, symbol, character,
 * rational or special constant); false if x is none of these.
 * @param {object} x @param {CborWriter} w
 */
export function emitAtom(x, w) {
  if (x instanceof Flonum) {
    w.float(x.v);
  } else if (x instanceof Sym) {
    w.tag(x.interned ? TAG_SYMBOL : TAG_UNINTERNED);
    w.text(x.name);
  } else if (x instanceof Char) {
    w.tag(TAG_CHAR);
    w.head(0, x.code);
  } else if (x instanceof Ratnum) {
    w.tag(TAG_RATIONAL);
    w.array(2);
    w.bigint(x.num);
    w.bigint(x.den);
  } else if (x instanceof Compnum) {
    w.tag(TAG_COMPLEX);
    w.array(2);
    emitReal(x.re, w);
    emitReal(x.im, w);
  } else if (x instanceof Special) {
    const tag = x === VOID ? TAG_VOID : x === EOF ? TAG_EOF : x === DEFAULT ? TAG_DEFAULT : x === UNIT_HASH ? TAG_UNIT_HASH : x === UNASSIGNED ? TAG_UNASSIGNED : -1;
    if (tag < 0) throw new CodecError(`cannot serialize #!${x.name}`);
    w.tag(tag);
    w.nil();
  } else {
    return false;
  }
  return true;
}

/**
 * A mutable string: its text under a tag, so that it is decoded mutable (a migrating
 * process keeps the strings it may still change). In a tuple it is plain text, so that
 * the tuple store matches it as the string it holds (setStringsAsText).
 * @param {MString} x @param {CborWriter} w
 */
export function emitMutableString(x, w) {
  if (!textOnly) w.tag(TAG_MUTABLE_STRING);
  w.text(x.text());
}

/** While set, a mutable string is written as plain text (tuples: see encodeValue). */
let textOnly = false;

/** @param {boolean} on */
export function setStringsAsText(on) {
  textOnly = on;
}

/** Whether mutable strings are being written as plain text (they then have no identity). */
export const stringsAsText = () => textOnly;

/** A complex number's part. @param {any} x a real @param {CborWriter} w */
function emitReal(x, w) {
  if (typeof x === 'number') w.int(x);
  else if (typeof x === 'bigint') w.bigint(x);
  else emitAtom(x, w);
}

/** The marks of an encoding with no shared objects (never written). */
const EMPTY_MARKS = new Map();

class FrameBody {
  /** @param {Frame} frame */
  constructor(frame) {
    this.frame = frame;
  }
}
