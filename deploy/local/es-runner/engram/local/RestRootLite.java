/*
 * Part of deploy/local/es-runner (local test Elasticsearch, see EngramEsRunner).
 *
 * GET / and HEAD / (client.info(), client.ping()) live in the rest-root module,
 * which is not on Maven Central; this answers them with the same JSON shape.
 */
package engram.local;

import org.apache.lucene.util.Version;
import org.elasticsearch.Build;
import org.elasticsearch.cluster.metadata.IndexNameExpressionResolver;
import org.elasticsearch.cluster.node.DiscoveryNodes;
import org.elasticsearch.cluster.service.ClusterService;
import org.elasticsearch.common.io.stream.NamedWriteableRegistry;
import org.elasticsearch.common.settings.ClusterSettings;
import org.elasticsearch.common.settings.IndexScopedSettings;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.common.settings.SettingsFilter;
import org.elasticsearch.features.NodeFeature;
import org.elasticsearch.plugins.ActionPlugin;
import org.elasticsearch.plugins.Plugin;
import org.elasticsearch.rest.BaseRestHandler;
import org.elasticsearch.rest.RestController;
import org.elasticsearch.rest.RestHandler;
import org.elasticsearch.rest.RestRequest;
import org.elasticsearch.rest.RestResponse;
import org.elasticsearch.rest.RestStatus;
import org.elasticsearch.xcontent.XContentBuilder;

import java.util.Collection;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.function.Supplier;

public final class RestRootLite extends Plugin implements ActionPlugin {

    private final AtomicReference<ClusterService> clusterService = new AtomicReference<>();

    @Override
    public Collection<?> createComponents(PluginServices services) {
        clusterService.set(services.clusterService());
        return List.of();
    }

    @Override
    public Collection<RestHandler> getRestHandlers(
        Settings settings,
        NamedWriteableRegistry namedWriteableRegistry,
        RestController restController,
        ClusterSettings clusterSettings,
        IndexScopedSettings indexScopedSettings,
        SettingsFilter settingsFilter,
        IndexNameExpressionResolver indexNameExpressionResolver,
        Supplier<DiscoveryNodes> nodesInCluster,
        Predicate<NodeFeature> clusterSupportsFeature
    ) {
        return List.of(new BaseRestHandler() {
            @Override
            public String getName() {
                return "engram_main_action";
            }

            @Override
            public List<Route> routes() {
                return List.of(new Route(RestRequest.Method.GET, "/"), new Route(RestRequest.Method.HEAD, "/"));
            }

            @Override
            protected RestChannelConsumer prepareRequest(RestRequest request, org.elasticsearch.client.internal.node.NodeClient client) {
                return channel -> {
                    ClusterService cs = clusterService.get();
                    Build build = Build.current();
                    XContentBuilder b = channel.newBuilder();
                    if (request.hasParam("pretty") == false) {
                        b.prettyPrint();
                    }
                    b.startObject()
                        .field("name", cs.getNodeName())
                        .field("cluster_name", cs.getClusterName().value())
                        .field("cluster_uuid", cs.state().metadata().clusterUUID())
                        .startObject("version")
                        .field("number", build.qualifiedVersion())
                        .field("build_flavor", build.flavor())
                        .field("build_type", build.type().displayName())
                        .field("build_hash", build.hash())
                        .field("build_date", build.date())
                        .field("build_snapshot", build.isSnapshot())
                        .field("lucene_version", Version.LATEST.toString())
                        .field("minimum_wire_compatibility_version", build.minWireCompatVersion())
                        .field("minimum_index_compatibility_version", build.minIndexCompatVersion())
                        .endObject()
                        .field("tagline", "You Know, for Search")
                        .endObject();
                    channel.sendResponse(new RestResponse(RestStatus.OK, b));
                };
            }
        });
    }
}
