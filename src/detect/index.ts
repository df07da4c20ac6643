export { detectFamily, type FamilyMatch } from './detect.js';
