import type { CommandRegistrar } from './index.js';

// Placeholder until the 'detect' command lands.
export const register: CommandRegistrar = () => {};
