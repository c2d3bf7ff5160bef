// @ts-check
/**
 * The value codec: any Scheme value — including procedures and continuations — to
 * deterministic CBOR and back. The tag table is docs/wire-format.md, which also says
 * which codec serves which boundary of the system (this one: Scheme values between
 * nodes, in snapshots, and in the hashes of compiled units).
 *
 * This file is the codec's face: the rest of the package, and index.js / internal.js
 * for other packages, import from here. Where each mechanism lives:
 *   tags.js        the tag numbers and what each tagged item is
 *   codec-error.js CodecError, the codec's one error
 *   registry.js    extension codecs (other packages' classes) and record types by uid
 *   writer.js      CborWriter (deterministic CBOR primitives) and SlabWriter (one slab
 *                  for many short-lived encodings)
 *   encode.js      values to bytes: the one-pass encoder of small values, and the
 *                  two-pass encoder for the rest
 *   sharing.js     the two-pass encoder's first pass: objects reached twice
 *   emit.js        the two-pass encoder's second pass, and the atoms both encoders write
 *   code-ref.js    how a closure's or frame's code is named: {unit hash, environment}
 *   decode.js      bytes to values, for untrusted input
 *
 * Invariants (the codec's, kept by the files above): the same value always gives the
 * same bytes (deterministic CBOR, RFC 8949 §4.2); an object with identity reached more
 * than once is written once (tag 28) and referred to after (tag 29), so shared
 * structure and cycles survive a round trip; encoding and decoding cost no recursion in
 * a list's length or a continuation's depth.
 */
export { CodecError } from './codec-error.js';
export * from './tags.js';
export { registerValueCodec, internRecordType } from './registry.js';
export { encodeValue, encodeAnyValue, encodeSmallValue, encodeSmallBetween, encodedSpare } from './encode.js';
export { decodeValue } from './decode.js';
export { CborWriter, SlabWriter } from './writer.js';
export { sharesNothing } from './sharing.js';
