import type { CommandRegistrar } from './index.js';

// Placeholder until the 'render' command lands.
export const register: CommandRegistrar = () => {};
