export type * from './types.js';
export { loadTemplate, loadTemplateFromSources } from './load.js';
export { renderConversation, render, inspectTemplate } from './render.js';
