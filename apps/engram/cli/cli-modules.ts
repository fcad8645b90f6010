import type { Type } from '@nestjs/common';
import type { EngramConfig } from '@engram/config';

/**
 * How the CLI builds the embedded server: `rebuild` needs the projections, `start` everything.
 * Its own file so that the command files and `engram-cli.ts`, which registers them, do not import
 * each other.
 */
export interface CliModules {
  server(config: EngramConfig): Type<unknown> | object;
  rebuild(config: EngramConfig): Type<unknown> | object;
}
