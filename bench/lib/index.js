// @ts-check
/**
 * The benchmark scripts' toolkit: timing (timing.js), printing (report.js) and child
 * processes with time limits (proc.js).
 */
export * from './timing.js';
export * from './report.js';
export * from './proc.js';
