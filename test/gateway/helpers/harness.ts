// A gateway in front of a replay backend, both on 127.0.0.1, torn down after the test file.
import OpenAI from 'openai';
import { afterAll } from 'vitest';
import { createGateway, loadGatewayModel, type AccessLogEntry, type GatewayOptions } from '../../../src/gateway/index.js';
import { backendUrl, startReplayBackend, type ReplayBackend } from './replay-backend.js';

export interface Harness {
  backend: ReplayBackend;
  url: string;
  log: AccessLogEntry[];
  openai: OpenAI;
  close(): Promise<void>;
}

export async function startHarness(
  family: string,
  kind: 'llama.cpp' | 'openai' | 'ollama' = 'llama.cpp',
  extra: Partial<GatewayOptions> = {},
): Promise<Harness> {
  const backend = await startReplayBackend();
  const log: AccessLogEntry[] = [];
  const gateway = createGateway({
    model: loadGatewayModel({ family }).model,
    backend: { url: backendUrl(backend.url, kind), kind },
    log: (entry) => log.push(entry),
    ...extra,
  });
  const listening = await gateway.listen(0);
  const openai = new OpenAI({ baseURL: `${listening.url}/v1`, apiKey: extra.apiKey ?? 'unused', maxRetries: 0 });
  const close = async () => {
    await listening.close();
    await backend.close();
  };
  afterAll(close);
  return { backend, url: listening.url, log, openai, close };
}
