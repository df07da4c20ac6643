export type * from './types.js';
export { loadTemplate } from './load.js';
export { renderConversation, render, inspectTemplate } from './render.js';
