import type { CommandRegistrar } from './index.js';

// Placeholder until the 'transpile' command lands.
export const register: CommandRegistrar = () => {};
