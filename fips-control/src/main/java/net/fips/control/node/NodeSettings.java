package net.fips.control.node;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;

import net.fips.control.config.NodeConfig;
import net.fips.control.config.PeerConfig;
import net.fips.control.link.LinkConfig;
import net.fips.dataplane.engine.DataPlaneContext;
import net.fips.dataplane.engine.ThreadingMode;
import net.fips.dataplane.pool.PacketPool;
import net.fips.dataplane.transport.Transport;
import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.transport.TransportTypes;
import net.fips.dataplane.udp.UdpAddresses;
import net.fips.dataplane.udp.UdpTransportException;
import net.fips.control.config.EthernetAddress;
import net.fips.dataplane.ethernet.MacAddress;

/** Maps {@code node.*} onto the link layer's settings and picks the transport for a peer address. */
final class NodeSettings {
    private static final long MS = 1_000_000L;
    private static final long S = 1_000_000_000L;

    private NodeSettings() {
    }

    /**
     * The link settings of a node config. The reference's fixed constants (rekey jitter, drain window, dampening,
     * minimum session age, retries per tick) keep {@link LinkConfig#defaults()}.
     */
    static LinkConfig linkConfig(final NodeConfig n) {
        final LinkConfig d = LinkConfig.defaults();
        return new LinkConfig(times(n.tickIntervalSecs(), S), times(n.heartbeatIntervalSecs(), S),
                times(n.linkDeadTimeoutSecs(), S), times(n.rateLimit().handshakeTimeoutSecs(), S),
                times(n.rateLimit().handshakeResendIntervalMs(), MS), n.rateLimit().handshakeResendBackoff(),
                n.rateLimit().handshakeMaxResends(), n.rekey().enabled(), n.rekey().afterSecs(),
                n.rekey().afterMessages(), d.rekeyJitterSeconds(), d.drainWindowNanos(), d.rekeyDampeningNanos(),
                d.rekeyMinSessionAgeNanos(), times(n.retry().baseIntervalSecs(), S),
                times(n.retry().maxBackoffSecs(), S), n.retry().maxRetries(), d.maxRetriesPerTick(),
                n.rateLimit().handshakeBurst(), n.rateLimit().handshakeRate(), n.limits().maxPendingInbound(),
                n.limits().maxPeers(), n.limits().maxConnections());
    }

    /**
     * The data plane's threading: {@code FIPS_DATAPLANE_THREADING} over {@code node.dataplane.threading}. {@code auto}
     * is {@link ThreadingMode#COMPACT} with one worker ({@link #COMPACT_AUTO_MAX_WORKERS}; the default worker count on
     * fewer than four processors) and {@link ThreadingMode#DEDICATED} with more. On the quiet 2-core VM
     * (docs/benchmarks.md, "Quiet-machine run after the second milestone-2 merge") compact had the lower ping RTT
     * (0.75 against 1.11 ms warm), the higher chain throughput and a pair throughput within the noise of dedicated's;
     * with several workers dedicated keeps the AEAD on several cores.
     *
     * @return the mode and, for the log, why
     */
    static Threading threading(final NodeConfig.Threading configured, final Optional<NodeConfig.Threading> env,
                               final int workers) {
        final NodeConfig.Threading asked = env.orElse(configured);
        final String source = env.isPresent() ? "FIPS_DATAPLANE_THREADING" : "node.dataplane.threading";
        return switch (asked) {
            case DEDICATED -> new Threading(ThreadingMode.DEDICATED, source + ": dedicated");
            case COMPACT -> new Threading(ThreadingMode.COMPACT, source + ": compact");
            case AUTO -> workers <= COMPACT_AUTO_MAX_WORKERS
                    ? new Threading(ThreadingMode.COMPACT, source + ": auto, " + workers + " worker(s)")
                    : new Threading(ThreadingMode.DEDICATED, source + ": auto, " + workers + " worker(s)");
        };
    }

    /** The most workers with which {@code auto} picks {@link ThreadingMode#COMPACT}. */
    static final int COMPACT_AUTO_MAX_WORKERS = 1;

    /** A resolved threading mode and where it came from. */
    record Threading(ThreadingMode mode, String reason) {
    }

    /**
     * The worker count when {@code FIPS_ENCRYPT_WORKERS} is not set: half the processors, 1 to 16. Each worker is
     * one busy thread under load, and the receive, transmit and TUN threads and the kernel's own share of every
     * packet (UDP, TCP, TUN) need the other half; on a 2-core machine that is one worker.
     */
    static int defaultWorkers(final int processors) {
        return Math.max(1, Math.min(16, processors / 2));
    }

    /**
     * Packet slots of the data plane's pool, from {@code node.buffers.packet_channel} (the reference's packet queue
     * capacity, 1024): once per worker plus once, so a full queue per worker and as many packets in flight fit (2048
     * with one worker), but never fewer than two
     * receive batches per transport and per worker. The pool is allocated (and touched) at start, so this is most
     * of the node's off-heap resident set: 2048 slots of about 2 KiB at the default.
     */
    static int poolSlots(final NodeConfig n, final int transports, final int workers) {
        final long floor = 2L * DataPlaneContext.BATCH_DEFAULT * (Math.max(1, transports) + 2L * Math.max(1, workers));
        // one packet channel per worker on top of one for the receive/transmit side: 2048 slots with one worker
        final long want = (1L + Math.max(1, workers)) * n.buffers().packetChannel();
        return (int) Math.min(PacketPool.MAX_SLOT_COUNT, Math.max(floor, want));
    }

    /** Saturating multiply: a u64 of seconds from YAML must not wrap into a negative duration. */
    static long times(final long value, final long unit) {
        final long hi = Math.multiplyHigh(value, unit);
        final long lo = value * unit;
        if ((hi == 0 && lo >= 0) || (hi == -1 && lo < 0)) {
            return lo;
        }
        return value < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }

    /** Where to dial a peer: a transport and its address on it. */
    record Dial(int transportId, TransportAddr address) {
    }

    /**
     * Picks the first address of the peer, by priority, that one of our transports can use: a UDP address must
     * resolve and be reachable from the transport's socket family (an IPv4 socket cannot send to IPv6); another
     * type's address goes to the first transport of that type. An address of transport {@code <type>/<instance>}
     * uses only the transport with that instance name.
     *
     * @param peer       the configured peer
     * @param transports our transports, by transport id
     * @param problems   where to note skipped addresses
     * @return the dial, or empty when no address is usable
     */
    static Optional<Dial> pickDial(final PeerConfig peer, final List<? extends Transport> transports,
                                   final List<String> problems) {
        for (final PeerConfig.Address a : peer.addressesByPriority()) {
            final String kind = a.kind();
            if (TransportTypes.UDP.equals(kind) && "nat".equalsIgnoreCase(a.addr())) {
                continue;   // reached by NAT traversal (NostrDiscovery), never dialled directly
            }
            if (TransportTypes.ETHERNET.equals(kind)) {
                try {
                    return Optional.of(ethernetDial(a.addr(), transports));
                } catch (final IllegalArgumentException e) {
                    problems.add(e.getMessage());
                    continue;
                }
            }
            if (!TransportTypes.UDP.equals(kind)) {
                final int tid = transportOfType(kind, a.instance().orElse(null), transports);
                if (tid < 0) {
                    problems.add("no " + kind + " transport of this node for " + a.addr());
                    continue;
                }
                return Optional.of(new Dial(tid, TransportAddr.ofText(a.addr())));
            }
            final InetSocketAddress address;
            try {
                address = UdpAddresses.parse(a.addr());
            } catch (final UdpTransportException e) {
                problems.add(e.getMessage());
                continue;
            }
            final int tid = a.instance().isPresent() ? instanceFor(a.instance().get(), address, transports)
                    : transportFor(address, transports);
            if (tid < 0) {
                problems.add("no UDP transport of this node can reach " + a.addr());
                continue;
            }
            return Optional.of(new Dial(tid, TransportAddr.ofInet(address)));
        }
        return Optional.empty();
    }

    /**
     * An Ethernet address as config and {@code fipsctl connect} write it, {@code iface/aa:bb:cc:dd:ee:ff}: the
     * interface picks the Ethernet instance bound to it (transports.md §4.5), the MAC is the transport address.
     *
     * @throws IllegalArgumentException naming the text when it does not parse or no instance is on that interface
     */
    static Dial ethernetDial(final String text, final List<? extends Transport> transports) {
        final EthernetAddress e = EthernetAddress.parse(text);
        for (int i = 0; i < transports.size(); i++) {
            final Transport t = transports.get(i);
            if (TransportTypes.ETHERNET.equals(t.typeName()) && e.interfaceName().equals(t.interfaceName())) {
                return new Dial(i, TransportAddr.ofMac(MacAddress.toBytes(e.mac())));
            }
        }
        throw new IllegalArgumentException("no ethernet transport of this node on interface " + e.interfaceName()
                + " for " + text);
    }

    /** @return the first transport of {@code type} (with instance name {@code instance} when not null), or -1 */
    static int transportOfType(final String type, final String instance, final List<? extends Transport> transports) {
        for (int i = 0; i < transports.size(); i++) {
            final Transport t = transports.get(i);
            if (!t.bootstrapOnly() && t.typeName().equals(type)
                    && (instance == null || instance.equals(t.instanceName()))) {
                return i;
            }
        }
        return -1;
    }

    /** @return the UDP transport named {@code name} that can send to {@code address}, or -1 */
    static int instanceFor(final String name, final InetSocketAddress address,
                           final List<? extends Transport> transports) {
        for (int i = 0; i < transports.size(); i++) {
            final Transport t = transports.get(i);
            if (!t.bootstrapOnly() && TransportTypes.UDP.equals(t.typeName()) && name.equals(t.instanceName())
                    && t.datagramReaches(address)) {
                return i;
            }
        }
        return -1;
    }

    /** @return the first UDP transport that can send to {@code address}, or -1 */
    static int transportFor(final InetSocketAddress address, final List<? extends Transport> transports) {
        for (int i = 0; i < transports.size(); i++) {
            final Transport t = transports.get(i);
            if (!t.bootstrapOnly() && TransportTypes.UDP.equals(t.typeName()) && t.datagramReaches(address)) {
                return i;
            }
        }
        return -1;
    }
}
