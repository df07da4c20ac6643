// Renders a template under caller-set limits (test/jinja/budget.test.ts, scan-budget.test.ts).
import { compileTemplate, type RenderLimits } from '../../src/index.js';

export interface RenderFailure {
  code?: string;
  pythonType?: string;
  message: string;
}

/** The error a render throws; a render that succeeds fails the test. */
export function renderError(source: string, limits?: Partial<RenderLimits>): RenderFailure {
  try {
    compileTemplate(source, { name: 'hostile' }).render({}, { limits });
  } catch (error) {
    return error as RenderFailure;
  }
  throw new Error(`rendered without error: ${source}`);
}

export function render(source: string, limits?: Partial<RenderLimits>): string {
  return compileTemplate(source, { name: 'ok' }).render({}, { limits }).text;
}
