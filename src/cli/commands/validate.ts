import type { CommandRegistrar } from './index.js';

// Placeholder until the 'validate' command lands.
export const register: CommandRegistrar = () => {};
