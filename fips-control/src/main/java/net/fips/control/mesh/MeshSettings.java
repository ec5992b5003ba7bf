package net.fips.control.mesh;

import java.util.Objects;

import net.fips.control.bloom.BloomConfig;
import net.fips.control.config.NodeConfig;
import net.fips.control.discovery.DiscoveryConfig;
import net.fips.control.tree.TreeConfig;

/**
 * Settings of the routing layers, from {@code node.tree}, {@code node.bloom}, {@code node.discovery},
 * {@code node.cache}, {@code node.session.default_ttl} and {@code node.leaf_only}.
 *
 * @param tree              spanning tree
 * @param bloom             bloom filters
 * @param discovery         lookups
 * @param coordCacheSize    coordinate cache capacity
 * @param coordCacheTtlSecs coordinate cache TTL
 * @param identityCacheSize identity cache capacity
 * @param defaultTtl        TTL of the datagrams this node originates (error signals)
 * @param leafOnly          {@code node.leaf_only}
 */
public record MeshSettings(TreeConfig tree, BloomConfig bloom, DiscoveryConfig discovery, int coordCacheSize,
                           long coordCacheTtlSecs, int identityCacheSize, int defaultTtl, boolean leafOnly) {
    private static final long MS = 1_000_000L;
    private static final long S = 1_000_000_000L;

    /** Checks the values. */
    public MeshSettings {
        Objects.requireNonNull(tree, "tree");
        Objects.requireNonNull(bloom, "bloom");
        Objects.requireNonNull(discovery, "discovery");
        if (coordCacheSize < 1 || coordCacheTtlSecs < 1 || identityCacheSize < 1) {
            throw new IllegalArgumentException("cache sizes and TTL must be positive");
        }
        if (defaultTtl < 1 || defaultTtl > 255) {
            throw new IllegalArgumentException("default TTL must be 1..255");
        }
    }

    /** @return the reference's v0.4.1 defaults */
    public static MeshSettings defaults() {
        return new MeshSettings(TreeConfig.defaults(), BloomConfig.defaults(), DiscoveryConfig.defaults(), 50_000,
                300, 10_000, 64, false);
    }

    /**
     * @param n the {@code node} section
     * @return the settings it configures
     */
    public static MeshSettings from(final NodeConfig n) {
        final NodeConfig.Tree t = n.tree();
        final TreeConfig tree = new TreeConfig(t.announceMinIntervalMs() * MS, t.parentHysteresis(),
                sat(t.holdDownSecs()), sat(t.reevalIntervalSecs()), t.flapThreshold(), sat(t.flapWindowSecs()),
                sat(t.flapDampeningSecs()));
        final BloomConfig bd = BloomConfig.defaults();
        final BloomConfig bloom = new BloomConfig(n.bloom().updateDebounceMs() * MS, n.bloom().maxInboundFpr(),
                bd.ownFprWarnIntervalNanos());
        return new MeshSettings(tree, bloom, DiscoveryConfig.from(n.lookup()), n.cache().coordSize(),
                n.cache().coordTtlSecs(), n.cache().identitySize(), n.session().defaultTtl(), n.leafOnly());
    }

    private static long sat(final long secs) {
        return secs > Long.MAX_VALUE / S ? Long.MAX_VALUE : secs * S;
    }
}
