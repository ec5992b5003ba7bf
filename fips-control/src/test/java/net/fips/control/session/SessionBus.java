package net.fips.control.session;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Predicate;

import net.fips.control.identity.NodeIdentity;
import net.fips.dataplane.wire.Coords;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.dataplane.wire.SessionDatagram;
import net.fips.control.identity.TestIdentities;
import net.fips.testing.MessageBus;
import net.fips.control.identity.TestNode;

/**
 * Several {@link Sessions} joined by the shared in-memory {@link MessageBus} under a manual clock. Links are declared
 * between node indices; a datagram is routed along the shortest path of links (transit nodes only count it), so a
 * three-node line exercises a forwarded handshake. A drop filter simulates loss.
 */
final class SessionBus {
    static final long S = 1_000_000_000L;
    static final long MS = 1_000_000L;

    /** One datagram on the bus, with the number of links it crossed. */
    record Delivery(int from, int to, SessionDatagram dg, int hops) {
    }

    /** Everything a listener was told. */
    static final class Events implements SessionListener {
        final List<SessionKeys> established = new ArrayList<>();
        final List<SessionKeys> rekeyPending = new ArrayList<>();
        final List<NodeAddr> cutovers = new ArrayList<>();
        final List<NodeAddr> previousExpired = new ArrayList<>();
        final List<String> closed = new ArrayList<>();
        final Map<NodeAddr, List<byte[]>> flushed = new HashMap<>();
        final List<NodeAddr> lookups = new ArrayList<>();
        final List<NodeAddr> warmups = new ArrayList<>();
        final List<Integer> pathMtus = new ArrayList<>();

        @Override
        public void onEstablished(final SessionKeys keys, final long nowNanos) {
            established.add(keys);
        }

        @Override
        public void onRekeyPending(final SessionKeys keys, final long nowNanos) {
            rekeyPending.add(keys);
        }

        @Override
        public void onRekeyCutover(final NodeAddr remote, final long nowNanos) {
            cutovers.add(remote);
        }

        @Override
        public void onPreviousKeysExpired(final NodeAddr remote, final long nowNanos) {
            previousExpired.add(remote);
        }

        @Override
        public void onClosed(final NodeAddr remote, final CloseReason reason, final long nowNanos) {
            closed.add(reason.name());
        }

        @Override
        public void onFlush(final NodeAddr remote, final List<byte[]> packets, final long nowNanos) {
            flushed.computeIfAbsent(remote, k -> new ArrayList<>()).addAll(packets);
        }

        @Override
        public void onLookupNeeded(final NodeAddr dest, final long nowNanos) {
            lookups.add(dest);
        }

        @Override
        public void onCoordsWarmupNeeded(final NodeAddr remote, final long nowNanos) {
            warmups.add(remote);
        }

        @Override
        public void onPathMtu(final NodeAddr dest, final int mtu, final long nowNanos) {
            pathMtus.add(mtu);
        }
    }

    /** One node. */
    final class Node extends TestNode implements SessionHost {
        final Map<NodeAddr, Coords> coordCache = new HashMap<>();
        final List<NodeAddr> forgotten = new ArrayList<>();
        final Events events = new Events();
        final List<SessionDatagram> sent = new ArrayList<>();
        Coords coords;
        Sessions sessions;
        long transited;
        /** When set, this node claims this address as its own (an identity-spoofing attacker). */
        NodeAddr spoofAs;

        Node(final int index, final NodeIdentity identity) {
            super(index, identity);
            this.coords = Coords.of(addr);
        }

        @Override
        public NodeAddr self() {
            return spoofAs != null ? spoofAs : addr;
        }

        @Override
        public Coords selfCoords() {
            return coords;
        }

        @Override
        public Coords coordsOf(final NodeAddr dest) {
            return coordCache.get(dest);
        }

        @Override
        public boolean route(final SessionDatagram dg) {
            final Integer to = byAddr.get(dg.dest());
            if (to == null) {
                return false;
            }
            final int hops = hops(index, to);
            if (hops < 0) {
                return false;
            }
            sent.add(dg);
            bus.send(new Delivery(index, to, dg, hops));
            return true;
        }

        @Override
        public void cacheCoords(final NodeAddr a, final Coords c) {
            coordCache.put(a, c);
        }

        @Override
        public void forgetCoords(final NodeAddr dest) {
            coordCache.remove(dest);
            forgotten.add(dest);
        }

        /** Learns {@code other}'s identity (as a DNS lookup would). */
        void knows(final Node other) {
            register(other, now);
        }
    }

    final List<Node> nodes = new ArrayList<>();
    final Map<NodeAddr, Integer> byAddr = new HashMap<>();
    final Map<Integer, Set<Integer>> links = new HashMap<>();
    final MessageBus<Delivery> bus = new MessageBus<>(10_000);
    final List<Delivery> delivered = new ArrayList<>();
    Predicate<Delivery> drop = d -> false;
    long now = 1_000 * S;

    /** Makes {@code n} nodes with deterministic keys from {@code seed}, all with {@code config}. */
    SessionBus(final int n, final long seed, final SessionConfig config) {
        bus.dropWhen(d -> drop.test(d));
        final Random rnd = new Random(seed);
        for (int i = 0; i < n; i++) {
            final Node node = new Node(i, TestIdentities.random(rnd));
            nodes.add(node);
            byAddr.put(node.addr, i);
            final Random ephemerals = new Random(seed * 31 + i);
            node.sessions = new Sessions(config, node.identity, new byte[] {0, 0, 0, 0, 0, 0, 0, (byte) (i + 1)},
                    node, node.identities, node.events, () -> TestIdentities.secret(ephemerals),
                    new Random(seed * 17 + i));
        }
    }

    SessionBus(final int n, final long seed) {
        this(n, seed, SessionConfig.defaults());
    }

    Node node(final int i) {
        return nodes.get(i);
    }

    /** A bidirectional link. */
    SessionBus link(final int a, final int b) {
        links.computeIfAbsent(a, k -> new HashSet<>()).add(b);
        links.computeIfAbsent(b, k -> new HashSet<>()).add(a);
        return this;
    }

    /** Removes a link. */
    void unlink(final int a, final int b) {
        links.getOrDefault(a, Set.of()).remove(b);
        links.getOrDefault(b, Set.of()).remove(a);
    }

    /** @return links on the shortest path, or -1 when unreachable */
    int hops(final int from, final int to) {
        if (from == to) {
            return 0;
        }
        final Map<Integer, Integer> dist = new HashMap<>();
        final ArrayDeque<Integer> q = new ArrayDeque<>();
        dist.put(from, 0);
        q.add(from);
        while (!q.isEmpty()) {
            final int x = q.poll();
            for (final int y : links.getOrDefault(x, Set.of())) {
                if (!dist.containsKey(y)) {
                    dist.put(y, dist.get(x) + 1);
                    if (y == to) {
                        return dist.get(y);
                    }
                    q.add(y);
                }
            }
        }
        return -1;
    }

    /** Delivers queued datagrams (and whatever they cause) until the bus is empty; bounded. */
    int drain() {
        return bus.drain(d -> {
            delivered.add(d);
            // transit nodes on a multi-hop path see it pass (counted only)
            if (d.hops > 1) {
                for (final Node x : nodes) {
                    if (x.index != d.from && x.index != d.to && hops(d.from, x.index) + hops(x.index, d.to) == d.hops) {
                        x.transited++;
                    }
                }
            }
            node(d.to).sessions.onFspMessage(d.dg.src(), d.dg.payload(), now);
        });
    }

    /** Advances the clock, ticks every node and drains the bus. */
    void advance(final long nanos) {
        now += nanos;
        for (final Node x : nodes) {
            x.sessions.tick(now);
        }
        drain();
    }

    /** Advances one second at a time for {@code seconds} seconds. */
    void runSeconds(final int seconds) {
        for (int i = 0; i < seconds; i++) {
            advance(S);
        }
    }

    /** @return delivered datagrams whose FSP phase is {@code phase}, from node {@code from} */
    long countPhase(final int from, final int phase) {
        return delivered.stream().filter(d -> d.from == from && (d.dg.payload()[0] & 0x0F) == phase).count();
    }

    static int phase(final Delivery d) {
        return d.dg.payload()[0] & 0x0F;
    }
}
