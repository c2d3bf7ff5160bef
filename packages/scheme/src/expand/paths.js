// @ts-check
/**
 * File-name arithmetic for `include` and library lookup, with '/' separators. No
 * node:path: the expander also runs in browsers, where names are URL-like paths.
 */

/** The directory part of `file` ('' when it has none). @param {string|null} file */
export function dirname(file) {
  if (!file) return '';
  const i = file.lastIndexOf('/');
  return i < 0 ? '' : i === 0 ? '/' : file.slice(0, i);
}

/** @param {string} name */
export const isAbsolute = (name) => name.startsWith('/') || /^[A-Za-z]:[\\/]/.test(name) || /^[a-z][a-z0-9+.-]*:\/\//i.test(name);

/**
 * `name` relative to directory `dir` (unless absolute), with `.` and `..` segments removed.
 * @param {string} dir @param {string} name
 */
export function resolvePath(dir, name) {
  if (isAbsolute(name) || dir === '') return normalize(name);
  return normalize(dir.endsWith('/') ? dir + name : `${dir}/${name}`);
}

/** @param {string} p */
function normalize(p) {
  const abs = p.startsWith('/');
  const out = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..' && out.length > 0 && out[out.length - 1] !== '..') out.pop();
    else if (seg === '..' && abs) continue;
    else out.push(seg);
  }
  const joined = out.join('/');
  return abs ? `/${joined}` : joined || '.';
}
