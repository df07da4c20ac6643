import type { CommandRegistrar } from './index.js';

// Placeholder until the 'families' command lands.
export const register: CommandRegistrar = () => {};
