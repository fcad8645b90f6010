import { Module } from '@nestjs/common';
import { createExtractionStrategy } from '@engram/adapters-llm';
import { ExtractionOptions } from '@engram/config';
import { defaultScreeningConfig } from '@engram/domain';
import { LogEncryptor } from './crypto/encrypt-log';
import { AccessProjection, AccessStage } from './pipeline/access.projection';
import { EXTRACTION_STRATEGY, ExtractorStage } from './pipeline/extractor.stage';
import { FactsProjection } from './pipeline/facts.projection';
import { FilterStage, SCREENING_CONFIG } from './pipeline/filter.stage';
import { ForgettingSchedulerModule } from './forgetting/forgetting.job';
import { IndexerStage } from './pipeline/indexer.stage';
import { Rebuilder } from './replay/rebuilder';
import { ReplayProjections } from './replay/replay-projections';
import { Reprocessor } from './replay/reprocessor';
import { ResolverStage } from './pipeline/resolver.stage';
import { SearchProjection } from './pipeline/search.projection';
import { SessionsProjection, SessionsStage } from './pipeline/sessions.projection';
import { WebhookDeliveryModule } from './webhooks/webhooks.module';

/**
 * One module per deployable worker. The embedded server imports them all;
 * each distributed app imports one. The handlers are identical in both modes.
 */
@Module({
  controllers: [FilterStage],
  providers: [{ provide: SCREENING_CONFIG, useValue: defaultScreeningConfig }],
})
export class FilterModule {}

@Module({
  controllers: [ExtractorStage],
  // The embedded rules, or an OpenAI-compatible chat model (ENGRAM_EXTRACTOR=llm).
  providers: [
    {
      provide: EXTRACTION_STRATEGY,
      useFactory: (options: ExtractionOptions) => createExtractionStrategy(options),
      inject: [ExtractionOptions],
    },
  ],
})
export class ExtractorModule {}

/** The resolver, and the forgetting sweep it applies (commands through its own input topic). */
@Module({ imports: [ForgettingSchedulerModule], controllers: [ResolverStage], providers: [FactsProjection] })
export class ResolverModule {}

/** The search, sessions and access projections, and the webhooks' deliveries (from the same facts topic). */
@Module({
  imports: [WebhookDeliveryModule],
  controllers: [IndexerStage, SessionsStage, AccessStage],
  providers: [SearchProjection, SessionsProjection, AccessProjection],
})
export class IndexerModule {}

/** Every projection, for rebuilds and reprocessing; and the log's own maintenance (encrypt-log). */
@Module({
  providers: [
    FactsProjection,
    SearchProjection,
    SessionsProjection,
    AccessProjection,
    ReplayProjections,
    Rebuilder,
    Reprocessor,
    LogEncryptor,
  ],
  exports: [Rebuilder, Reprocessor, LogEncryptor],
})
export class ProjectionsModule {}
