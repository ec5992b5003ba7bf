package net.fips.control.node;

import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;

import net.fips.control.config.NodeConfig;
import net.fips.control.config.PeerConfig;
import net.fips.control.config.UdpConfig;
import net.fips.control.link.LinkConfig;
import net.fips.dataplane.engine.DataPlaneContext;
import net.fips.dataplane.pool.PacketPool;
import net.fips.dataplane.udp.UdpAddresses;
import net.fips.dataplane.udp.UdpTransport;
import net.fips.dataplane.udp.UdpTransportException;

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

    /** Saturating multiply: a u64 of seconds from YAML must not wrap into a negative duration. */
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

    static long times(final long value, final long unit) {
        final long hi = Math.multiplyHigh(value, unit);
        final long lo = value * unit;
        if ((hi == 0 && lo >= 0) || (hi == -1 && lo < 0)) {
            return lo;
        }
        return value < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }

    /** Where to dial a peer: a transport and a resolved address. */
    record Dial(int transportId, InetSocketAddress address) {
    }

    /**
     * Picks the first UDP address of the peer, by priority, that resolves and that one of our transports can
     * reach (an IPv4 socket cannot send to IPv6).
     *
     * @param peer       the configured peer
     * @param transports our transports, by transport id
     * @param problems   where to note skipped addresses
     * @return the dial, or empty when no address is usable
     */
    static Optional<Dial> pickDial(final PeerConfig peer, final List<UdpTransport> transports,
                                   final List<String> problems) {
        return pickDial(peer, transports, List.of(), problems);
    }

    /**
     * As {@link #pickDial(PeerConfig, List, List)}; an address of transport {@code udp/<instance>} uses only the
     * transport whose config ({@code names}, by transport id) has that instance name.
     */
    static Optional<Dial> pickDial(final PeerConfig peer, final List<UdpTransport> transports,
                                   final List<UdpConfig> configs, final List<String> problems) {
        for (final PeerConfig.Address a : peer.addressesByPriority()) {
            if (!"udp".equals(a.kind())) {
                continue;
            }
            final InetSocketAddress address;
            try {
                address = UdpAddresses.parse(a.addr());
            } catch (final UdpTransportException e) {
                problems.add(e.getMessage());
                continue;
            }
            final int tid = a.instance().isPresent() ? instanceFor(a.instance().get(), address, transports, configs)
                    : transportFor(address, transports);
            if (tid < 0) {
                problems.add("no UDP transport of this node can reach " + a.addr());
                continue;
            }
            return Optional.of(new Dial(tid, address));
        }
        return Optional.empty();
    }

    /** @return the first transport that can send to {@code address}, or -1 */
    static int instanceFor(final String name, final InetSocketAddress address, final List<UdpTransport> transports,
                           final List<UdpConfig> configs) {
        for (int i = 0; i < transports.size() && i < configs.size(); i++) {
            if (configs.get(i).name().filter(name::equals).isPresent()
                    && (transports.get(i).isIpv6() || address.getAddress() instanceof Inet4Address)) {
                return i;
            }
        }
        return -1;
    }

    static int transportFor(final InetSocketAddress address, final List<UdpTransport> transports) {
        for (int i = 0; i < transports.size(); i++) {
            final UdpTransport t = transports.get(i);
            if (t.isIpv6() || address.getAddress() instanceof Inet4Address) {
                return i;
            }
        }
        return -1;
    }
}
