// Which engine answers classify, extract and generate-filename: the operator's OpenAI-compatible endpoint
// when one is configured (QUIRE_LLM_*), otherwise — and whenever the endpoint fails or its answer does not
// pass the checks — the built-in engine. The result says which one answered (`engine`) and, after a
// fallback, why (`fallbackReason`); the server log says the same with the details.
import type { WorkerInput, WorkerLogEntry, WorkerOutput } from '../../sdk/index.js';
import { LlmFailure, type LlmJob } from './llm.js';
import { words } from './understand.js';

/** What the model path returns: the result, and facts for the log line (e.g. fields it named without evidence). */
export interface LlmAnswer {
  result: Record<string, unknown>;
  unsupported?: string[];
}

export interface EngineChoice {
  /** The text both engines read, one line per document line. */
  text: string;
  /** Which pages it covers, for the prompt. */
  scope: string;
  llm: (job: LlmJob) => Promise<LlmAnswer>;
  builtin: () => Record<string, unknown>;
}

export async function answer(input: WorkerInput<unknown>, choice: EngineChoice): Promise<WorkerOutput> {
  const endpoint = input.llm;
  if (!endpoint) return { result: { ...choice.builtin(), engine: 'builtin' } };
  const where = { endpoint: originOf(endpoint.baseUrl), model: endpoint.model };
  if (words(choice.text).length === 0) {
    const reason = 'the document has no text, so the LLM endpoint was not asked';
    return fallback(choice, reason, { level: 'info', msg: 'lens: built-in engine answered', fields: { ...where, reason } });
  }
  try {
    const { result, unsupported } = await choice.llm({ endpoint, outbound: input.outbound, text: choice.text, scope: choice.scope });
    const fields = { ...where, engine: 'llm', ...(unsupported?.length ? { notInDocument: unsupported.join(', ') } : {}) };
    return { result: { ...result, engine: 'llm', model: endpoint.model }, log: [{ level: 'info', msg: 'lens: the LLM endpoint answered', fields }] };
  } catch (err) {
    // Anything unexpected in the checks is a failed answer too: the built-in engine still has one.
    const failure = err instanceof LlmFailure ? err : new LlmFailure('the answer could not be checked', (err as Error)?.message ?? String(err));
    return fallback(choice, failure.reason, { level: 'warn', msg: 'lens: LLM endpoint not used, built-in engine answered', fields: { ...where, reason: failure.reason, detail: failure.detail } });
  }
}

function fallback(choice: EngineChoice, reason: string, log: WorkerLogEntry): WorkerOutput {
  return { result: { ...choice.builtin(), engine: 'builtin', fallbackReason: reason }, log: [log] };
}

/** Scheme, host and port only: a path or query may carry what the operator would not log. */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(invalid URL)';
  }
}
