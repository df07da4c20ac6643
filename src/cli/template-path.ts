import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { UserError, type IO } from './io.js';

/** `owner/name` as the Hub spells a model id. */
const HUB_ID = /^[A-Za-z0-9][\w.-]{0,95}\/[\w.-]{1,96}$/;

/**
 * The template argument as a path. A Hub id (`Qwen/Qwen3-8B`) that is not also a local path gets a hint to download
 * the model's template files, since chatfmt never fetches from the network.
 */
export function templatePath(template: string, io: IO): string {
  const path = resolve(io.cwd, template);
  if (!existsSync(path) && HUB_ID.test(template)) {
    throw new UserError(
      `${template}: no such file or folder; if it is a Hugging Face model id, download its template first: huggingface-cli download ${template} --include '*.json' '*.jinja' --local-dir ${template.split('/')[1]} (then pass that folder)`,
    );
  }
  return path;
}
