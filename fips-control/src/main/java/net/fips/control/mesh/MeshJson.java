package net.fips.control.mesh;

import java.math.BigInteger;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.TreeMap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import net.fips.control.bloom.BloomSnapshot;
import net.fips.control.discovery.Discovery;
import net.fips.control.discovery.DiscoveryStats;
import net.fips.control.identity.FipsAddress;
import net.fips.control.identity.IdentityCache;
import net.fips.control.tree.TreeCoordinates;
import net.fips.control.tree.TreeCounter;
import net.fips.control.tree.TreeSnapshot;
import net.fips.dataplane.route.CoordCache;
import net.fips.dataplane.wire.NodeAddr;

/**
 * Renders the routing layers' state in the shapes of the reference's {@code show_tree}, {@code show_bloom},
 * {@code show_cache} and the routing part of {@code show_routing} (operator.md §2.3; the reference's
 * {@code src/control/queries.rs} key sets). Control thread only.
 */
final class MeshJson {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;
    /** The reference prints an unreachable tree distance as Rust's {@code usize::MAX}. */
    private static final BigInteger USIZE_MAX = new BigInteger("18446744073709551615");
    private static final long MS = 1_000_000L;
    /** The reference's JSON names are the snake_case forms of our record components. */
    private static final PropertyNamingStrategies.NamingBase SNAKE = new PropertyNamingStrategies.SnakeCaseStrategy();

    private MeshJson() {
    }

    static MeshSnapshot render(final MeshControl m, final Function<NodeAddr, String> names, final long nowNanos,
                               final long wallNowMs) {
        final TreeSnapshot t = m.tree().snapshot();
        final BloomSnapshot b = m.bloomRouting().snapshot();
        final Map<String, MeshSnapshot.PeerRouting> peers = new LinkedHashMap<>();
        final Map<NodeAddr, BloomSnapshot.PeerFilter> filters = new LinkedHashMap<>();
        for (final BloomSnapshot.PeerFilter pf : b.peerFilters()) {
            filters.put(pf.peer(), pf);
        }
        // As the reference: before any peer has an RTT sample every peer costs 1.0; after, an unmeasured one has none.
        final boolean noPeerHasCost = t.peers().stream().noneMatch(TreeSnapshot.Peer::hasCost);
        for (final TreeSnapshot.Peer p : t.peers()) {
            final BloomSnapshot.PeerFilter pf = filters.get(p.nodeAddr());
            final Double eff = p.hasPosition() && (p.hasCost() || noPeerHasCost)
                    ? p.depth() + (p.hasCost() ? p.cost() : 1.0) : null;
            peers.put(p.nodeAddr().toString(), new MeshSnapshot.PeerRouting(p.hasPosition(),
                    p.hasPosition() ? p.depth() : null, p.isParent(), p.isChild(), pf != null && pf.hasFilter(),
                    pf == null ? 0 : pf.filterSequence(), eff));
        }
        final Long mesh = m.bloomRouting().estimatedMeshSize().isPresent()
                ? m.bloomRouting().estimatedMeshSize().getAsLong() : null;
        return new MeshSnapshot(tree(m, t, names, nowNanos), bloom(b, names),
                cache(m.coordCache(), names, nowNanos, wallNowMs), routing(m, names, nowNanos, wallNowMs),
                t.root().toString(), t.isRoot(), t.depth(), mesh, peers,
                m.tree().counter(TreeCounter.PARENT_SWITCHES), identities(m.identityCache(), names, nowNanos,
                        wallNowMs));
    }

    static ObjectNode tree(final MeshControl m, final TreeSnapshot t, final Function<NodeAddr, String> names,
                           final long nowNanos) {
        final ObjectNode o = F.objectNode();
        o.put("my_node_addr", t.myNodeAddr().toString());
        o.put("root", t.root().toString());
        final IdentityCache.Entry rootId = t.root().equals(t.myNodeAddr()) ? null
                : m.identityCache().lookup(t.root(), nowNanos);
        if (t.root().equals(t.myNodeAddr())) {
            o.put("root_npub", m.npub());
        } else if (rootId != null) {
            o.put("root_npub", rootId.identity().npub());
        } else {
            o.putNull("root_npub");
        }
        o.put("is_root", t.isRoot());
        o.put("depth", t.depth());
        o.set("my_coords", addrs(t.myCoords()));
        o.put("parent", t.parent().toString());
        o.put("parent_display_name", names.apply(t.parent()));
        o.put("declaration_sequence", new BigInteger(Long.toUnsignedString(t.declarationSequence())));
        o.put("declaration_signed", t.declarationSigned());
        o.put("peer_tree_count", t.peerTreeCount());
        final ArrayNode peers = o.putArray("peers");
        for (final TreeSnapshot.Peer p : t.peers()) {
            if (!p.hasPosition()) {
                continue;
            }
            final ObjectNode po = peers.addObject();
            po.put("node_addr", p.nodeAddr().toString());
            po.put("display_name", names.apply(p.nodeAddr()));
            po.put("depth", p.depth());
            po.put("root", p.root().toString());
            po.set("coords", addrs(p.coords()));
            if (p.distanceToUs() == TreeCoordinates.UNREACHABLE) {
                po.put("distance_to_us", USIZE_MAX);
            } else {
                po.put("distance_to_us", p.distanceToUs());
            }
        }
        o.set("stats", counters(t.stats()));
        return o;
    }

    static ObjectNode bloom(final BloomSnapshot b, final Function<NodeAddr, String> names) {
        final ObjectNode o = F.objectNode();
        o.put("own_node_addr", b.ownNodeAddr().toString());
        o.put("is_leaf_only", b.isLeafOnly());
        o.put("sequence", new BigInteger(Long.toUnsignedString(b.sequence())));
        o.put("leaf_dependent_count", b.leafDependents().size());
        o.set("leaf_dependents", addrs(b.leafDependents()));
        final ArrayNode pfs = o.putArray("peer_filters");
        for (final BloomSnapshot.PeerFilter pf : b.peerFilters()) {
            final ObjectNode po = pfs.addObject();
            po.put("peer", pf.peer().toString());
            po.put("display_name", names.apply(pf.peer()));
            po.put("has_filter", pf.hasFilter());
            po.put("filter_sequence", new BigInteger(Long.toUnsignedString(pf.filterSequence())));
            if (pf.setBits() != null) {
                putNullable(po, "estimated_count", pf.estimatedCount());
                po.put("set_bits", pf.setBits());
                putNullable(po, "fill_ratio", pf.fillRatio());
            }
        }
        putNullable(o, "uptree_fill_ratio", b.uptreeFillRatio());
        putNullable(o, "uptree_estimated_count", b.uptreeEstimatedCount());
        o.set("stats", counters(b.stats()));
        return o;
    }

    static ObjectNode cache(final CoordCache c, final Function<NodeAddr, String> names, final long nowNanos,
                            final long wallNowMs) {
        final List<CoordCache.Listing> live = c.entries(nowNanos);
        final ObjectNode o = F.objectNode();
        o.put("count", c.size());
        o.put("max_entries", c.capacity());
        o.put("fill_ratio", c.capacity() == 0 ? 0.0 : (double) c.size() / c.capacity());
        o.put("default_ttl_ms", c.ttlNanos() / MS);
        o.put("expired", c.size() - live.size());
        long ageSum = 0;
        final ArrayNode entries = F.arrayNode();
        for (final CoordCache.Listing l : live) {
            ageSum += l.ageNanos() / MS;
            final ObjectNode e = entries.addObject();
            e.put("node_addr", l.addr().toString());
            e.put("display_name", names.apply(l.addr()));
            e.put("ipv6_addr", FipsAddress.fromNodeAddr(l.addr()).toString());
            e.put("depth", l.coords().depth());
            e.set("coords", addrs(l.coords().addrs()));
            e.put("age_ms", l.ageNanos() / MS);
            // Our entries keep the monotonic time of the last use; the reference prints it as Unix milliseconds.
            final long lastUsedAgoMs = (c.ttlNanos() - l.ttlLeftNanos()) / MS;
            e.put("last_used_ms", wallNowMs - Math.max(0, lastUsedAgoMs));
            if (l.pathMtu() > 0) {
                e.put("path_mtu", l.pathMtu());
            }
        }
        // An empty cache reports 0, as the reference's CoordCache::stats does (not a measurement; documented).
        o.put("avg_age_ms", live.isEmpty() ? 0 : ageSum / live.size());
        o.set("entries", entries);
        return o;
    }

    static ObjectNode identities(final IdentityCache c, final Function<NodeAddr, String> names, final long nowNanos,
                                 final long wallNowMs) {
        final ObjectNode o = F.objectNode();
        final ArrayNode entries = o.putArray("entries");
        for (final IdentityCache.Entry e : c.entries()) {
            final long ageMs = Math.max(0, (nowNanos - e.lastSeenNanos()) / MS);
            final ObjectNode eo = entries.addObject();
            eo.put("node_addr", e.nodeAddr().toString());
            eo.put("npub", e.identity().npub());
            eo.put("display_name", names.apply(e.nodeAddr()));
            eo.put("ipv6_addr", FipsAddress.fromNodeAddr(e.nodeAddr()).toString());
            eo.put("last_seen_ms", wallNowMs - ageMs);
            eo.put("age_ms", ageMs);
        }
        o.put("count", entries.size());
        o.put("max_entries", c.capacity());
        return o;
    }

    static ObjectNode routing(final MeshControl m, final Function<NodeAddr, String> names, final long nowNanos,
                              final long wallNowMs) {
        final ObjectNode o = F.objectNode();
        o.put("coord_cache_entries", m.coordCache().size());
        o.put("identity_cache_entries", m.identityCache().size());
        final ArrayNode pending = o.putArray("pending_lookups");
        for (final Discovery.PendingLookup p : m.discoveryState().pendingLookups()) {
            final ObjectNode po = pending.addObject();
            po.put("target", p.target().toString());
            po.put("display_name", names.apply(p.target()));
            po.put("initiated_ms", wallNowMs - (nowNanos - p.initiatedNanos()) / MS);
            po.put("last_sent_ms", wallNowMs - (nowNanos - p.lastSentNanos()) / MS);
            po.put("attempt", p.attempt());
            po.put("age_ms", (nowNanos - p.initiatedNanos()) / MS);
        }
        o.put("recent_requests", m.discoveryState().recentRequestCount());
        final DiscoveryStats ds = DiscoveryStats.of(m.discoveryState());
        o.set("discovery", snakeCase(ds));
        final ObjectNode errors = o.putObject("error_signals");
        errors.put("coords_required", m.errorSignals("coords_required"));
        errors.put("mtu_exceeded", m.errorSignals("mtu_exceeded"));
        errors.put("path_broken", m.errorSignals("path_broken"));
        return o;
    }

    private static JsonNode snakeCase(final DiscoveryStats s) {
        final ObjectNode o = F.objectNode();
        for (final var c : DiscoveryStats.class.getRecordComponents()) {
            try {
                o.put(SNAKE.translate(c.getName()), (long) c.getAccessor().invoke(s));
            } catch (final ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        }
        return o;
    }

    private static ArrayNode addrs(final List<NodeAddr> list) {
        final ArrayNode a = F.arrayNode();
        for (final NodeAddr n : list) {
            a.add(n.toString());
        }
        return a;
    }

    private static ObjectNode counters(final Map<String, Long> stats) {
        final ObjectNode o = F.objectNode();
        new TreeMap<>(stats).forEach(o::put);
        return o;
    }

    private static void putNullable(final ObjectNode o, final String key, final Double v) {
        if (v == null) {
            o.putNull(key);
        } else {
            o.put(key, v);
        }
    }
}
