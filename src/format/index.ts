export { formatCompletion, formatTurn, type FormatOptions, type FormattedTurn } from './completion.js';
