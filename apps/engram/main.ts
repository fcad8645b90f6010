#!/usr/bin/env node
import 'reflect-metadata';
import { runCli } from './cli/engram-cli';
import { EngramModule } from './engram.module';

void runCli(
  {
    server: (config) => EngramModule.forRoot({ config }),
    rebuild: (config) => EngramModule.forMaintenance({ config }),
  },
  process.argv,
);
