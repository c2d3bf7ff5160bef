// @ts-check
/**
 * The JS <-> CBOR codec of @termite/core, by piece: cbor-values.js (the JS
 * values with a CBOR meaning), encode.js (the encoder), fallback.js (cbor-x
 * for objects the encoder has no rule for), decode.js (the decoder). This
 * file states the mapping they implement and exports them together.
 *
 * The encoder writes straight into a byte view (the core's transfer area)
 * and produces the deterministic encoding of RFC 8949 §4.2.1 for
 * everything but map key order (the core sorts maps when it
 * canonicalises, so maps take its slow path; everything else is used in
 * place). It handles numbers, bigints, strings, booleans, null, undefined,
 * Uint8Array, arrays, Maps, plain objects, Sym, Formal, Float and cbor-x
 * Tag; any other object (Date, Set, typed arrays, ...) is handed to cbor-x.
 *
 * The decoder reads canonical CBOR (what the core returns) without copying
 * more than the values it builds.
 *
 * JS -> CBOR: integral numbers -> integers (beyond 2^53 via bigint, so
 * exact), other numbers -> the shortest float that holds them exactly,
 * Float(x) -> float, bigint -> integer or bignum (tags 2/3), string ->
 * text, Uint8Array -> bytes, Array -> array, Map / plain object -> map,
 * Sym -> tag 40960, Formal -> tag 40992, Tag(v, n) -> tag n,
 * true/false/null/undefined -> simple values.
 * CBOR -> JS: integers -> number when safe, else bigint; floats -> number;
 * text -> string; bytes -> Uint8Array (a copy); arrays -> Array; maps ->
 * Map; tag 40960 -> Sym; tag 40992 -> Formal; tags 2/3 -> bigint; other
 * tags -> Tag.
 */
export { Tag, Sym, Formal, Float, float, Simple, formal } from './cbor-values.js';
export { encodeInto, encode } from './encode.js';
export { decodeFrom, decode } from './decode.js';
