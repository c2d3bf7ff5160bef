// Scheme source files (.scm) imported as text: browser bundles embed them at build time
// (esbuild's text loader); in Node the *-source.js modules read them instead.
declare module '*.scm' {
  const text: string;
  export default text;
}
