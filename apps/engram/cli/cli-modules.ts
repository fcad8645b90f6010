import type { Type } from '@nestjs/common';
import type { EngramConfig } from '@engram/config';
import type { Clock } from '@engram/ports';

/**
 * How the CLI builds the embedded server: `rebuild` needs the projections, `start` everything.
 * Its own file so that the command files and `engram-cli.ts`, which registers them, do not import
 * each other.
 */
export interface CliModules {
  /** `clock`: a clock other than the system's (`eval-truth` moves it to each check's time). */
  server(config: EngramConfig, clock?: Clock): Type<unknown> | object;
  rebuild(config: EngramConfig): Type<unknown> | object;
}
