import { Controller, Get, Param, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { InspectorFiles } from './inspector-files';
import { Public } from './tenancy';

/**
 * The web inspector: static files, public (they hold no data); every call they make goes to the
 * API with the key the user typed in, so they see what that key may see.
 */
@ApiExcludeController()
@Public()
@Controller('inspector')
export class InspectorController {
  private readonly files = new InspectorFiles();

  @Get()
  index(@Res() res: Response): void {
    return this.files.send(res, 'index.html');
  }

  @Get(':file')
  file(@Param('file') file: string, @Res() res: Response): void {
    return this.files.send(res, file);
  }
}
