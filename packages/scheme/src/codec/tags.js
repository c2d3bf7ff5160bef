// @ts-check
/**
 * The CBOR tag numbers of the value codec: what each tagged item on the wire is. The
 * table with each tag's content is docs/wire-format.md; the numbers here must stay as
 * they are there (other nodes and stored snapshots depend on them).
 *
 * Invariants: a number names one kind of value and never changes meaning. The standard
 * tags (2/3 bignums, 28/29 sharing, 30 rationals) follow RFC 8949 and its registry; the
 * Termite tags sit in the private block 40960–41023. Tags other packages register
 * (pids 40974, tags 40975, nodes 40976, spaces 40983, Linda formals 40992) are defined
 * by those packages and must not reuse a number below.
 */

/** "shareable": the value may be referred to again by tag 29 (shared structure, cycles). */
export const TAG_SHAREABLE = 28;
/** "sharedref": the n-th value marked with tag 28 in this item, counting from 0. */
export const TAG_SHAREDREF = 29;
/** [numerator, denominator]: an exact rational. */
export const TAG_RATIONAL = 30;
/** text: an interned symbol. */
export const TAG_SYMBOL = 40960;
/** unsigned: a character (a Unicode scalar value). */
export const TAG_CHAR = 40961;
/** array: a proper, non-empty list (the empty list is CBOR null). */
export const TAG_LIST = 40962;
/** array of 2 or more: an improper list, its elements then its final cdr. */
export const TAG_DOTTED = 40963;
/** null: the unspecified value. */
export const TAG_VOID = 40964;
/** null: the end-of-file object. */
export const TAG_EOF = 40965;
/** null: the default object (an optional argument not given). */
export const TAG_DEFAULT = 40966;
/** array: multiple values. */
export const TAG_VALUES = 40967;
/** [uid, name, [field names]]: a record type descriptor. */
export const TAG_RECORD_TYPE = 40968;
/** [record type, field values...]: a record. */
export const TAG_RECORD = 40969;
/** [code, lambda index, free values...]: a closure (continuations too). */
export const TAG_CLOSURE = 40970;
/** [frame..., tail], frame = [code, lambda index, label, slots...]: a continuation's frames. */
export const TAG_FRAMES = 40971;
/** any: a box (an assigned variable captured by a closure). */
export const TAG_BOX = 40972;
/** [kind, who, message, irritants, loc]: an error object. */
export const TAG_ERROR = 40973;
/** [uid, default, converter]: a parameter (registered by primitives/prims-control.js). */
export const TAG_PARAMETER = 40977;
/** [unit hash, environment id]: a code reference, shared by the closures and frames of a unit. */
export const TAG_CODE = 40978;
/** null: "the hash of this unit" inside a unit's constants. */
export const TAG_UNIT_HASH = 40979;
/** text: an uninterned symbol. */
export const TAG_UNINTERNED = 40980;
/** null: the not-yet-initialised value of a letrec variable. */
export const TAG_UNASSIGNED = 40981;
/** [kind, ...]: a port (registered by primitives/port-codec.js). */
export const TAG_PORT = 40982;
/** text: a mutable string (an immutable string is plain CBOR text). */
export const TAG_MUTABLE_STRING = 40984;
/** [real part, imaginary part]: a non-real complex number (IANA's tag for a complex number). */
export const TAG_COMPLEX = 43000;
