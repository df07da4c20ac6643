import type { CommandRegistrar } from './index.js';

// Placeholder until the 'convert' command lands.
export const register: CommandRegistrar = () => {};
