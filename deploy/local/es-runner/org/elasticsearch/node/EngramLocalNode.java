/*
 * Part of deploy/local/es-runner (local test Elasticsearch, see EngramEsRunner).
 *
 * Lives in org.elasticsearch.node because NodeConstruction/NodeServiceProvider
 * are package-private: this is exactly what the test framework's MockNode does,
 * minus MockNode's call into ESTestCase (which needs JUnit + Lucene's test
 * framework on the classpath). Plugins are given as classes on the classpath
 * (MockPluginsService), since Central has no plugin/module zips to install.
 */
package org.elasticsearch.node;

import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.env.Environment;
import org.elasticsearch.plugins.MockPluginsService;
import org.elasticsearch.plugins.Plugin;
import org.elasticsearch.plugins.PluginsLoader;
import org.elasticsearch.plugins.PluginsService;

import java.util.Collection;
import java.util.Map;

public class EngramLocalNode extends Node {

    public EngramLocalNode(Settings settings, Collection<Class<? extends Plugin>> plugins) {
        super(NodeConstruction.prepareConstruction(
            InternalSettingsPreparer.prepareEnvironment(settings, Map.of(), null, () -> "engram-es-0"),
            null,
            new NodeServiceProvider() {
                @Override
                PluginsService newPluginService(Environment environment, PluginsLoader pluginsLoader) {
                    return new MockPluginsService(environment.settings(), environment, plugins);
                }
            },
            true // forbid private index settings, as a real node does
        ));
    }
}
