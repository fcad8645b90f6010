/*
 * Launcher for a single local Elasticsearch 8.x node, used only by
 * deploy/local/elasticsearch.sh for tests (no Docker, no tarball).
 *
 * Maven Central has the 8.x server jar and the transport-netty4 module but not
 * the distribution, so we start the node in-process the way Elasticsearch's own
 * test framework does (see org.elasticsearch.node.EngramLocalNode: a real Node
 * whose plugins are classes on the classpath, no mock services). The
 * analysis-common module is not on Central either, so AnalysisLite below
 * re-registers the pieces we need, straight from Lucene's analysis-common jar.
 *
 * Usage: java -cp 'es-libs/*:classes' engram.local.EngramEsRunner key=value ...
 * Every key=value argument is an Elasticsearch node setting (path.home,
 * http.port, ...); they override the defaults below.
 */
package engram.local;

import org.apache.lucene.analysis.cjk.CJKAnalyzer;
import org.apache.lucene.analysis.cjk.CJKBigramFilter;
import org.apache.lucene.analysis.cjk.CJKWidthFilter;
import org.apache.lucene.analysis.core.KeywordTokenizer;
import org.apache.lucene.analysis.core.WhitespaceTokenizer;
import org.apache.lucene.analysis.miscellaneous.ASCIIFoldingFilter;
import org.elasticsearch.common.logging.LogConfigurator;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.http.HttpServerTransport;
import org.elasticsearch.index.analysis.PreBuiltAnalyzerProviderFactory;
import org.elasticsearch.index.analysis.PreConfiguredTokenFilter;
import org.elasticsearch.index.analysis.PreConfiguredTokenizer;
import org.elasticsearch.indices.analysis.PreBuiltCacheFactory.CachingStrategy;
import org.elasticsearch.node.EngramLocalNode;
import org.elasticsearch.node.Node;
import org.elasticsearch.plugins.AnalysisPlugin;
import org.elasticsearch.plugins.Plugin;
import org.elasticsearch.transport.netty4.Netty4Plugin;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

public final class EngramEsRunner {

    /**
     * The subset of Elasticsearch's analysis-common module we rely on, all
     * "pre-configured" (usable by name in mappings, no parameters):
     * analyzer cjk; tokenizers whitespace, keyword; filters cjk_width,
     * cjk_bigram, asciifolding. The server itself already has the analyzers
     * standard, simple, whitespace, stop, keyword, classic, the standard
     * tokenizer and the lowercase, stop, shingle, hunspell filters.
     */
    public static final class AnalysisLite extends Plugin implements AnalysisPlugin {
        @Override
        public List<PreBuiltAnalyzerProviderFactory> getPreBuiltAnalyzerProviderFactories() {
            return List.of(new PreBuiltAnalyzerProviderFactory("cjk", CachingStrategy.LUCENE, CJKAnalyzer::new));
        }

        @Override
        public List<PreConfiguredTokenizer> getPreConfiguredTokenizers() {
            return List.of(
                PreConfiguredTokenizer.singleton("whitespace", WhitespaceTokenizer::new),
                PreConfiguredTokenizer.singleton("keyword", KeywordTokenizer::new)
            );
        }

        @Override
        public List<PreConfiguredTokenFilter> getPreConfiguredTokenFilters() {
            return List.of(
                PreConfiguredTokenFilter.singleton("cjk_width", true, CJKWidthFilter::new),
                PreConfiguredTokenFilter.singleton("cjk_bigram", false, CJKBigramFilter::new),
                PreConfiguredTokenFilter.singleton("asciifolding", true, ASCIIFoldingFilter::new)
            );
        }
    }

    public static void main(String[] args) throws Exception {
        Settings.Builder settings = Settings.builder()
            // loopback only, one node, never looks for peers
            .put("network.host", "127.0.0.1")
            .put("discovery.type", "single-node")
            .put("cluster.name", "engram-local")
            .put("node.name", "engram-es-0")
            // a nearly full CI disk must not flip indices to read-only
            .put("cluster.routing.allocation.disk.threshold_enabled", false);
        for (String arg : args) {
            int eq = arg.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("expected key=value, got: " + arg);
            }
            settings.put(arg.substring(0, eq), arg.substring(eq + 1));
        }

        // installs ES's logging bridge; log4j2 reads -Dlog4j2.configurationFile
        LogConfigurator.configureESLogging();

        Node node;
        try {
            node = new EngramLocalNode(settings.build(), List.of(Netty4Plugin.class, AnalysisLite.class, RestRootLite.class));
        } catch (Throwable t) {
            t.printStackTrace();
            System.exit(1);
            return;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                node.close();
                node.awaitClose(20, TimeUnit.SECONDS);
            } catch (Exception e) {
                e.printStackTrace();
            } finally {
                stopped.countDown();
            }
        }, "engram-es-shutdown"));
        try {
            node.start();
        } catch (Throwable t) {
            // e.g. port already bound: exit now (node threads are non-daemon and
            // would otherwise keep a half-started JVM alive until the script's timeout)
            t.printStackTrace();
            System.exit(1);
        }

        // the script waits on /_cluster/health; this line is for humans reading the log
        HttpServerTransport http = node.injector().getInstance(HttpServerTransport.class);
        System.out.println("ENGRAM_ES_HTTP " + http.boundAddress().publishAddress());
        System.out.flush();
        stopped.await();
    }
}
