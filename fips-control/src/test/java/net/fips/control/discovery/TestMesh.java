package net.fips.control.discovery;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import net.fips.control.identity.NodeIdentity;
import net.fips.dataplane.wire.BloomFilter;
import net.fips.dataplane.wire.Coords;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.control.identity.TestIdentities;
import net.fips.testing.MessageBus;
import net.fips.control.identity.TestNode;

/**
 * A hand-built mesh of {@link Discovery} instances joined by the shared in-memory {@link MessageBus} under a manual
 * clock.
 * Tree edges (parent → child) and non-tree ("mesh") edges are declared, then {@link #build()} derives each node's
 * coordinate and the inbound bloom filter every node holds from every peer (split horizon, tree-only merge, as a
 * converged mesh would have them), and registers every direct peer's identity (what promotion does).
 * Nodes created with {@link #sink} have no Discovery: they only record what reaches them.
 */
final class TestMesh {
    /** One message on the bus. */
    record Envelope(int from, int to, byte[] msg, long sentAtNanos) {
    }

    /** A cached route as the fake coordinate cache holds it. */
    record Route(Coords coords, int pathMtu, long atNanos) {
    }

    /** One test node. */
    final class Node extends TestNode implements MeshView {
        final Map<NodeAddr, Route> coordCache = new HashMap<>();
        final Map<NodeAddr, Integer> clampMap = new HashMap<>();
        final List<NodeAddr> found = new ArrayList<>();
        final List<NodeAddr> unreachable = new ArrayList<>();
        final List<Long> unreachableAt = new ArrayList<>();
        final List<Envelope> received = new ArrayList<>();
        /** peer index → link MTU (0 = unknown); insertion order is the peer order. */
        final LinkedHashMap<Integer, Integer> links = new LinkedHashMap<>();
        final Set<Integer> treePeers = new HashSet<>();
        final Map<Integer, BloomFilter> inbound = new HashMap<>();
        Integer parent;
        Coords coords;
        Discovery discovery;
        boolean isSink;

        Node(final int index, final NodeIdentity identity) {
            super(index, identity);
        }

        @Override
        public NodeAddr self() {
            return addr;
        }

        @Override
        public Coords selfCoords() {
            return coords;
        }

        @Override
        public List<DiscoveryPeer> peers() {
            final List<DiscoveryPeer> out = new ArrayList<>(links.size());
            for (final Map.Entry<Integer, Integer> l : links.entrySet()) {
                final int p = l.getKey();
                out.add(new DiscoveryPeer(nodes.get(p).addr, treePeers.contains(p), inbound.get(p), l.getValue()));
            }
            return out;
        }

        @Override
        public void sendLinkMessage(final NodeAddr peer, final byte[] msg) {
            final Integer to = byAddr.get(peer);
            if (to == null || !links.containsKey(to)) {
                undeliverable++;
                return;
            }
            final Envelope e = new Envelope(index, to, msg.clone(), now);
            bus.send(e);
            sent.add(e);
        }

        /** Replaces the filter this node holds from {@code peer} with one claiming exactly {@code members}. */
        void setFilter(final int peer, final int... members) {
            final BloomFilter f = BloomFilter.create();
            for (final int m : members) {
                f.insert(nodes.get(m).addr);
            }
            inbound.put(peer, f);
        }

        /** Adds {@code member} to the filter this node holds from {@code peer} (a stale or false-positive claim). */
        void addToFilter(final int peer, final int member) {
            inbound.computeIfAbsent(peer, p -> BloomFilter.create()).insert(nodes.get(member).addr);
        }

        /** Knows {@code other}'s key (as after a DNS lookup or an earlier handshake). */
        void learn(final Node other) {
            register(other, now);
        }

        long count(final DiscoveryCounter c) {
            return discovery.counter(c);
        }
    }

    final List<Node> nodes = new ArrayList<>();
    final Map<NodeAddr, Integer> byAddr = new HashMap<>();
    final MessageBus<Envelope> bus = new MessageBus<>(1_000_000);
    final List<Envelope> sent = new ArrayList<>();
    final long seed;
    final DiscoveryConfig config;
    long now;
    int undeliverable;

    TestMesh(final int n, final long seed) {
        this(n, seed, DiscoveryConfig.defaults());
    }

    TestMesh(final int n, final long seed, final DiscoveryConfig config) {
        this.seed = seed;
        this.config = config;
        final Random keys = new Random(seed);
        for (int i = 0; i < n; i++) {
            final Node node = new Node(i, TestIdentities.random(keys));
            nodes.add(node);
            byAddr.put(node.addr, i);
        }
    }

    Node node(final int i) {
        return nodes.get(i);
    }

    NodeAddr addr(final int i) {
        return nodes.get(i).addr;
    }

    /** Marks node {@code i} as a bare sink (no Discovery). Call before {@link #build()}. */
    TestMesh sink(final int i) {
        nodes.get(i).isSink = true;
        return this;
    }

    /** A tree edge: {@code child}'s parent is {@code parent}; both ends see the link with {@code mtu}. */
    TestMesh tree(final int parent, final int child, final int mtu) {
        final Node c = nodes.get(child);
        final Node p = nodes.get(parent);
        c.parent = parent;
        c.links.put(parent, mtu);
        p.links.put(child, mtu);
        c.treePeers.add(parent);
        p.treePeers.add(child);
        return this;
    }

    /** A non-tree link between {@code a} and {@code b}. */
    TestMesh mesh(final int a, final int b, final int mtu) {
        nodes.get(a).links.put(b, mtu);
        nodes.get(b).links.put(a, mtu);
        return this;
    }

    /** Derives coordinates and converged filters, registers peer identities, creates the Discovery instances. */
    TestMesh build() {
        for (final Node n : nodes) {
            final List<NodeAddr> path = new ArrayList<>();
            Node cur = n;
            int guard = 0;
            while (true) {
                path.add(cur.addr);
                if (cur.parent == null || ++guard > nodes.size()) {
                    break;
                }
                cur = nodes.get(cur.parent);
            }
            n.coords = new Coords(path);
        }
        for (final Node n : nodes) {
            for (final int p : n.links.keySet()) {
                n.inbound.put(p, filterFrom(p, n.index));
                n.identities.register(nodes.get(p).identity.toPeer(), now);
            }
            if (!n.isSink) {
                n.discovery = new Discovery(config, n, n.identities,
                        (t, c, mtu, at) -> n.coordCache.put(t, new Route(c, mtu, at)),
                        new PathMtuClamp() {
                            @Override
                            public int get(final NodeAddr dest) {
                                return n.clampMap.getOrDefault(dest, 0);
                            }

                            @Override
                            public void put(final NodeAddr dest, final int pathMtu) {
                                n.clampMap.put(dest, pathMtu);
                            }
                        },
                        new DiscoveryListener() {
                            @Override
                            public void onRouteFound(final NodeAddr t, final Coords c, final int mtu, final long at) {
                                n.found.add(t);
                            }

                            @Override
                            public void onUnreachable(final NodeAddr t, final long at) {
                                n.unreachable.add(t);
                                n.unreachableAt.add(at);
                            }
                        }, ProofSigner.of(n.identity), ProofVerifier.SCHNORR, new Random(seed * 31 + n.index));
            }
        }
        return this;
    }

    /**
     * The filter {@code from} sends to {@code to} in a converged mesh: {@code from} itself plus what its tree peers
     * other than {@code to} claim, i.e. everything reachable from {@code from} over tree edges without crossing
     * {@code to}.
     */
    private BloomFilter filterFrom(final int from, final int to) {
        final BloomFilter f = BloomFilter.create();
        final ArrayDeque<Integer> todo = new ArrayDeque<>();
        final Set<Integer> seen = new HashSet<>();
        todo.add(from);
        seen.add(from);
        seen.add(to);
        while (!todo.isEmpty()) {
            final int x = todo.poll();
            f.insert(nodes.get(x).addr);
            for (final int t : nodes.get(x).treePeers) {
                if (seen.add(t)) {
                    todo.add(t);
                }
            }
        }
        return f;
    }

    /** Delivers queued messages in FIFO order until the bus is empty; returns how many were delivered. */
    int deliverAll() {
        return bus.drain(e -> {
            final Node to = nodes.get(e.to());
            to.received.add(e);
            if (to.discovery != null) {
                to.discovery.onLinkMessage(nodes.get(e.from()).addr, e.msg(), now);
            }
        });
    }

    /** Advances the clock to {@code t} nanoseconds. */
    void at(final long t) {
        now = t;
    }

    /** Messages sent from {@code from} to {@code to} with the given msg_type, in order. */
    List<Envelope> sentBetween(final int from, final int to, final int type) {
        final List<Envelope> out = new ArrayList<>();
        for (final Envelope e : sent) {
            if (e.from() == from && e.to() == to && (e.msg()[0] & 0xFF) == type) {
                out.add(e);
            }
        }
        return out;
    }

    static long ms(final long millis) {
        return millis * 1_000_000L;
    }
}
