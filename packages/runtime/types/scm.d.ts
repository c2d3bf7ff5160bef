// Scheme source files imported as text: the browser bundle embeds them at build time
// (esbuild's 'text' loader), see src/scheme-sources/runtime-sources.browser.js.
declare module '*.scm' {
  const text: string;
  export default text;
}
