import { ChatfmtError } from '../../errors.js';
import { importHermesText } from './hermes-text.js';
import { importOpenAi } from './openai.js';
import { importShareGpt } from './sharegpt.js';
import { importShapes, type ImportResult, type ImportShape, type RowImporter } from './types.js';
import { importXlam } from './xlam.js';
import { importLlamaFactory } from './llamafactory.js';

export { importShapes, isImportShape, type ImportedConversation, type ImportResult, type ImportShape } from './types.js';
export { mapPseudoType } from '../tool-schema.js';

const importers: Record<ImportShape, RowImporter> = {
  openai: importOpenAi,
  sharegpt: importShareGpt,
  'hermes-text': importHermesText,
  xlam: importXlam,
  llamafactory: importLlamaFactory,
};

/** Maps one dataset row to canonical `{messages, tools}`; rows it cannot map come back with error issues. */
export function importRow(row: unknown, shape: ImportShape, line = 1): ImportResult {
  const importer = importers[shape];
  if (!importer) throw new ChatfmtError('INPUT_INVALID', `unknown dataset shape ${JSON.stringify(shape)} (known: ${importShapes.join(', ')})`);
  return importer(row, line);
}
