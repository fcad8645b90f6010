import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiProperty, ApiTags } from '@nestjs/swagger';
import { PortBindings } from '@engram/config';
import { Public } from './tenancy';

class HealthResponse {
  @ApiProperty({ example: 'ok' }) status!: string;
  @ApiProperty({ example: 'embedded' }) mode!: string;
}

@ApiTags('health')
@Controller()
export class HealthController {
  constructor(@Inject(PortBindings) private readonly bindings: PortBindings) {}

  @Public()
  @Get('health')
  @ApiOkResponse({ type: HealthResponse })
  health(): HealthResponse {
    return { status: 'ok', mode: this.bindings.mode };
  }
}
