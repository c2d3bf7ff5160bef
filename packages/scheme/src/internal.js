// @ts-check
/**
 * Engine internals for the packages built directly on the Scheme runtime (the process
 * runtime, the mesh integration, the browser worker). Not for programs: the stable API
 * is index.js. Every name here is re-exported from the module that owns it (engine/,
 * primitives/, codec/, ir/), so a value is the same object whichever way it is imported.
 */
export { R, U, CALL, unwind, arity, charge, chargeSince, PEND_CALL, PEND_CAPTURE, PEND_SUSPEND, PEND_EXIT, Cell, Unbound, gv } from './engine/engine.js';
export { Thread, runSlice, ACT_CALL, ACT_RETURN, SLICE_YIELD, SLICE_DONE, SLICE_SUSPENDED, SLICE_DIED, driverHooks, DIE } from './engine/driver.js';
export { ErrorOrigin, originHere, MAX_LINES as BACKTRACE_LINES } from './engine/backtrace.js';
export { definePrimitive, primitives } from './engine/registry.js';
export { defineBuiltin, installPrimitives, builtinUnit } from './engine/builtins.js';
export { defineResumable, defineStep, more } from './engine/resumable.js';
export { boot, consoleSinks, loadRuntimeSource, runtimeUnits, precompiledRuntime, supplyPrecompiledRuntime, supplyPrecompiledUnits, precompiledStats } from './engine/boot.js';
export { rtEnv, libraryEnvs, Environment, instantiate, LinkError, fastSourcesOf, presetFastSources, forgetGenerated, setFastCompiler } from './engine/linker.js';
export { registerValueCodec, encodeValue, encodeSmallValue, encodeSmallBetween, encodedSpare, encodeAnyValue, decodeValue, CodecError, internRecordType, CborWriter, sharesNothing } from './codec/index.js';
export * as tags from './codec/tags.js';
export { registerEquality, isEqual, isEqv } from './primitives/prims-equivalence.js';
export { registerPrinter, writeString, displayString } from './printer.js';
export { Port } from './primitives/port.js';
export { attachConsoleInput, detachConsoleInput } from './primitives/console-input.js';
export { consolePorts, portDecoders } from './primitives/port-codec.js';
export { current } from './engine/current.js';
export { makeParameter, parameterValue, ParamKey } from './primitives/prims-control.js';
export { checkWire } from './ir/check-wire.js';
export { IRCheckError } from './ir/wire.js';
export * as expander from './expand/extension.js';
