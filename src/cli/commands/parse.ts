import type { CommandRegistrar } from './index.js';

// Placeholder until the 'parse' command lands.
export const register: CommandRegistrar = () => {};
