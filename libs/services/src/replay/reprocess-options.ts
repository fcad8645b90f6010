import { createExtractionStrategy } from '@engram/adapters-llm';
import type { ExtractionOptions } from '@engram/config';
import { ExtractionStrategy, RuleExtractor } from '@engram/domain';
import type { LogPosition, ReprocessLineage } from '@engram/ports';

/** What `engram reprocess` is asked, what it answers, and what it refuses. */

export interface ReprocessOptions {
  /** 'beginning', or an ISO instant: memories as they stood then are carried over, later turns re-decided. */
  readonly from: string;
  /** The extraction strategy to re-run: `rules-10`, or the configured LLM's `llm-<prompt>:<model>`. */
  readonly extractorVersion: string;
  readonly onProgress?: (progress: ReprocessProgress) => void;
}

export interface ReprocessProgress {
  readonly phase: 'carrying over' | 'reprocessing' | 'catching up' | 'overlap';
  /** Input messages handled in this phase (users when carrying over, turns otherwise). */
  readonly done: number;
  readonly total: number;
}

/** The run's lineage (not activated yet, so no switch position) and what it read and wrote. */
export interface ReprocessResult extends Omit<ReprocessLineage, 'switchPosition'> {
  /** Turns-topic messages read (turns and forget requests). */
  readonly turns: number;
  /** Memories carried over as they stood at `from`. */
  readonly carried: number;
  /** Events appended to the run's topic (carried memories, decisions, forgets). */
  readonly decisions: number;
}

export interface ActivationResult {
  readonly factsVersion: number;
  readonly searchVersion: number;
  readonly previousFactsVersion: number;
  readonly previousSearchVersion: number;
  /** Turns re-decided during the catch-up before the switch. */
  readonly caughtUp: number;
  readonly switchPosition: LogPosition;
}

/** Refused: the brief's `--extractor-version` names no strategy this build can run. */
export class UnknownExtractorVersion extends Error {
  constructor(
    readonly requested: string,
    readonly known: readonly string[],
  ) {
    super(
      `unknown extractor version "${requested}": this build knows ${known.join(', ')}${known.some((k) => k.startsWith('llm-')) ? '' : ' (the LLM one needs ENGRAM_LLM_URL, and ENGRAM_LLM_MODEL names it)'}`,
    );
  }
}

/** Refused: another reprocess or rebuild of facts/search is in the way. */
export class ReprocessConflict extends Error {}

/** The extraction strategies this build can run: the rules, and the LLM one when an endpoint is configured. */
export function knownExtractionStrategies(options: ExtractionOptions): ExtractionStrategy[] {
  const strategies: ExtractionStrategy[] = [new RuleExtractor()];
  if (options.ENGRAM_LLM_URL) strategies.push(createExtractionStrategy({ ...options, ENGRAM_EXTRACTOR: 'llm' }));
  return strategies;
}

export function extractionStrategyFor(options: ExtractionOptions, version: string): ExtractionStrategy {
  const known = knownExtractionStrategies(options);
  const strategy = known.find((s) => s.version === version);
  if (!strategy)
    throw new UnknownExtractorVersion(
      version,
      known.map((s) => s.version),
    );
  return strategy;
}

/** `--from`: null for the beginning, else the instant in milliseconds. */
export function parseFrom(from: string): number | null {
  if (from === 'beginning') return null;
  const t = Date.parse(from);
  if (!/^\d{4}-\d{2}-\d{2}/.test(from) || !Number.isFinite(t)) {
    throw new Error(`--from must be "beginning" or an ISO instant such as 2026-11-30T09:00:00Z, not "${from}"`);
  }
  return t;
}
