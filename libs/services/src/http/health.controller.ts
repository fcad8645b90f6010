import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiProperty, ApiTags } from '@nestjs/swagger';
import { EngramConfig } from '@engram/config';
import { Public } from './tenancy';

class HealthResponse {
  @ApiProperty({ example: 'ok' }) status!: string;
  @ApiProperty({ example: 'embedded' }) mode!: string;
}

@ApiTags('health')
@Controller()
export class HealthController {
  constructor(private readonly config: EngramConfig) {}

  @Public()
  @Get('health')
  @ApiOkResponse({ type: HealthResponse })
  health(): HealthResponse {
    return { status: 'ok', mode: this.config.ENGRAM_MODE };
  }
}
