// Public API for Node: the core, plus what needs a file system or threads. Exports only.
export * from './core.js';
export * from './validate/index.js';
export * from './convert/index.js';
// Named exports win over the core's `export *`: in Node, templates also load from paths, families know their files.
export { loadTemplate, render } from './node/load.js';
export { families, getFamily, type Family } from './node/families.js';
