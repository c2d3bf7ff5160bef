// @ts-check
/**
 * The reader's parse stack: one frame per open construct (list, vector, bytevector, and
 * the prefixes that wait for one datum: `'x`, `#n=`, `#;`), so nested data are read
 * without JS recursion.
 *
 * Invariants: frames are reused from one datum to the next (one object per nesting
 * level), so reading allocates no frame per list; a popped frame stays valid until the
 * next push; a list frame holds the head and tail of the list built so far.
 */

/** @typedef {import('./source-locations.js').SourceLocation} SourceLocation */
/** @typedef {import('../values.js').Pair} Pair */

// Frame kinds of the parse stack.
export const F_LIST = 0;
export const F_VECTOR = 1;
export const F_BYTES = 2;
export const F_ABBREV = 3; // 'x `x ,x ,@x: waits for one datum
export const F_LABEL = 4; // #n= waits for one datum
export const F_COMMENT = 5; // #; waits for one datum and drops it

/** @type {any[]} */
const EMPTY = [];

/** One open construct on the parse stack. */
export class Frame {
  /**
   * @param {number} kind @param {number} pos UTF-16 index where it starts
   * @param {SourceLocation|null} loc
   */
  constructor(kind, pos, loc) {
    this.kind = kind;
    this.pos = pos;
    this.loc = loc;
    /** closing character code for lists: `)` or `]` */
    this.close = 41;
    /** @type {Pair|null} */
    this.head = null;
    /** @type {Pair|null} */
    this.tail = null;
    /** 0: elements; 1: after `.`, waiting for the tail; 2: tail read, waiting for `)` */
    this.dot = 0;
    /** @type {any[]} vector / bytevector elements (unused by lists) */
    this.items = kind === F_VECTOR || kind === F_BYTES ? [] : EMPTY;
    /** @type {any} abbreviation symbol, or label number */
    this.tag = null;
  }
}

/**
 * The parse stack. Frames are reused from one list to the next (one object per nesting
 * level), so reading allocates no frame per list.
 */
export class FrameStack {
  constructor() {
    /** @type {Frame[]} */
    this.frames = [];
    /** number of open frames */
    this.n = 0;
  }
  /**
   * Open a construct. @param {number} kind @param {number} pos @param {SourceLocation|null} loc
   * @returns {Frame}
   */
  push(kind, pos, loc) {
    let f = this.frames[this.n];
    if (f === undefined) this.frames[this.n] = f = new Frame(kind, pos, loc);
    else {
      f.kind = kind;
      f.pos = pos;
      f.loc = loc;
      f.close = 41;
      f.dot = 0;
      f.items = kind === F_VECTOR || kind === F_BYTES ? [] : EMPTY;
      f.tag = null;
    }
    this.n++;
    return f;
  }
  /** The innermost open frame, or null. */
  top() {
    return this.n > 0 ? this.frames[this.n - 1] : null;
  }
  /** Close the innermost frame; it stays valid until the next push. */
  pop() {
    const f = this.frames[--this.n];
    f.head = null;
    f.tail = null;
    return f;
  }
}

/**
 * Returned by token readers and by delivery when there is no datum to hand on yet: the
 * token opened a construct or was a directive, or the delivered datum went into an open
 * construct.
 */
export const NOTHING = Symbol('nothing');
