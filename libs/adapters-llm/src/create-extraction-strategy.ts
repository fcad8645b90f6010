import type { EngramConfig } from '@engram/config';
import { extractiveSummaryWriter, RuleExtractor, type ExtractionStrategy, type SummaryWriter } from '@engram/domain';
import { OpenAiChatExtractor } from './openai-chat-extractor';
import { OpenAiChatSummarizer } from './openai-chat-summarizer';

/** The part of the configuration that chooses and sets up the extraction strategy. */
export type ExtractionStrategyConfig = Pick<
  EngramConfig,
  | 'ENGRAM_EXTRACTOR'
  | 'ENGRAM_LLM_URL'
  | 'ENGRAM_LLM_MODEL'
  | 'ENGRAM_LLM_API_KEY'
  | 'ENGRAM_LLM_TIMEOUT_MS'
  | 'ENGRAM_LLM_RETRIES'
  | 'ENGRAM_WORKING_MEMORY_MINUTES'
>;

/** The embedded rules by default; an OpenAI-compatible chat model when ENGRAM_EXTRACTOR=llm. */
export function createExtractionStrategy(config: ExtractionStrategyConfig): ExtractionStrategy {
  if (config.ENGRAM_EXTRACTOR !== 'llm') return new RuleExtractor();
  if (!config.ENGRAM_LLM_URL) throw new Error('ENGRAM_LLM_URL: required when ENGRAM_EXTRACTOR=llm');
  return new OpenAiChatExtractor({
    url: config.ENGRAM_LLM_URL,
    model: config.ENGRAM_LLM_MODEL,
    apiKey: config.ENGRAM_LLM_API_KEY,
    timeoutMs: config.ENGRAM_LLM_TIMEOUT_MS,
    retries: config.ENGRAM_LLM_RETRIES,
    workingMemoryMinutes: config.ENGRAM_WORKING_MEMORY_MINUTES,
  });
}

/** Who writes session summaries: an LLM when one is configured (ENGRAM_SUMMARIZER, else with ENGRAM_EXTRACTOR=llm), else extractive. */
export function createSummaryWriter(config: ExtractionStrategyConfig & Pick<EngramConfig, 'ENGRAM_SUMMARIZER'>): SummaryWriter {
  const llm = (config.ENGRAM_SUMMARIZER ?? (config.ENGRAM_EXTRACTOR === 'llm' ? 'llm' : 'extractive')) === 'llm';
  if (!llm) return extractiveSummaryWriter;
  if (!config.ENGRAM_LLM_URL) throw new Error('ENGRAM_LLM_URL: required when ENGRAM_SUMMARIZER=llm');
  return new OpenAiChatSummarizer({
    url: config.ENGRAM_LLM_URL,
    model: config.ENGRAM_LLM_MODEL,
    apiKey: config.ENGRAM_LLM_API_KEY,
    timeoutMs: config.ENGRAM_LLM_TIMEOUT_MS,
    retries: config.ENGRAM_LLM_RETRIES,
  });
}
