#!/usr/bin/env node
import 'reflect-metadata';
import { runCli } from './cli/engram-cli';
import { EngramModule } from './engram.module';

void runCli(
  {
    server: (config, clock) => EngramModule.forRoot({ config, clock }),
    rebuild: (config) => EngramModule.forMaintenance({ config }),
  },
  process.argv,
);
