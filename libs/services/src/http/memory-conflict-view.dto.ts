import { ApiProperty } from '@nestjs/swagger';

/**
 * Two statements that cannot both hold (docs/memory-model.md §3): what the current value contradicts,
 * until the user confirms it. Shown by the memory list (users/) and recall's debug output (recall/).
 */
export class MemoryConflictView {
  @ApiProperty({ type: 'integer', minimum: 1, description: 'The version in `history` the current value contradicts.' })
  previousVersion!: number;
  @ApiProperty() previousValue!: string;
  @ApiProperty({ description: 'How the contradicted value was said.' }) previousContent!: string;
  @ApiProperty({ format: 'date-time', description: 'When the contradicted value was said (world time).' }) previousFrom!: string;
  @ApiProperty({ format: 'date-time', description: "When the contradiction was said: the current value's `validFrom`." }) since!: string;
}
