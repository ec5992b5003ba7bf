package net.fips.control.node;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentLinkedQueue;

import com.fasterxml.jackson.databind.JsonNode;

import net.fips.control.config.ConfigException;
import net.fips.control.config.ConfigLoader;
import net.fips.control.config.HostEnvironment;
import net.fips.control.config.LoadedConfig;
import net.fips.control.identity.NodeIdentity;
import net.fips.control.link.LinkSnapshot;
import net.fips.control.link.PeerSnapshot;
import net.fips.dataplane.LocalDelivery;
import net.fips.dataplane.wire.SessionDatagram;
import net.fips.dataplane.wire.SessionDatagramHeader;
import net.fips.control.link.LinkCounter;
import net.fips.dataplane.Ipv6Sink;
import net.fips.dataplane.engine.DataPlaneCounter;
import net.fips.control.ctl.ControlClient;
import net.fips.control.ctl.ControlClientException;

/** Shared helpers for the loopback node tests: YAML, free ports, polling, sequenced datagrams. */
final class NodeTestSupport {
    static final long SECOND = 1_000_000_000L;
    /** Datagram size used by the traffic helpers (header, 8-byte sequence, padding). */
    static final int DATAGRAM_BYTES = 200;
    private static final ValueLayout.OfLong SEQ = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private NodeTestSupport() {
    }

    /** A peer entry for {@link #yaml}. */
    record Peer(NodeIdentity id, String alias, int port, boolean autoReconnect) {
    }

    /**
     * @param self      our identity (given as nsec, so no key file is written)
     * @param port      UDP port on 127.0.0.1
     * @param socket    control socket path
     * @param nodeExtra extra lines under {@code node:}, each indented by two spaces
     * @param peers     static peers
     * @return the YAML text
     */
    static String yaml(final NodeIdentity self, final int port, final Path socket, final String nodeExtra,
                       final Peer... peers) {
        final StringBuilder sb = new StringBuilder();
        sb.append("node:\n  identity:\n    nsec: \"").append(self.nsec()).append("\"\n");
        sb.append("  control:\n    enabled: true\n    socket_path: \"").append(socket).append("\"\n");
        sb.append(nodeExtra);
        sb.append("transports:\n  udp:\n    bind_addr: \"127.0.0.1:").append(port).append("\"\n");
        sb.append(peers.length == 0 ? "peers: []\n" : "peers:\n");
        for (final Peer p : peers) {
            sb.append("  - npub: \"").append(p.id().npub()).append("\"\n");
            sb.append("    alias: \"").append(p.alias()).append("\"\n");
            sb.append("    auto_reconnect: ").append(p.autoReconnect()).append('\n');
            sb.append("    addresses:\n      - transport: udp\n        addr: \"127.0.0.1:").append(p.port())
                    .append("\"\n");
        }
        return sb.toString();
    }

    static LoadedConfig load(final String yaml) throws ConfigException {
        return new ConfigLoader(HostEnvironment.system()).load(yaml, "test yaml");
    }

    static PeerSnapshot peerOf(final Node node, final Node other) {
        return node.linkSnapshot().peer(other.identity().npub());
    }

    static boolean linked(final Node a, final Node b) {
        return peerOf(a, b) != null && peerOf(b, a) != null;
    }

    /**
     * Sends {@code command} on {@code n}'s control socket, as fipsctl does.
     *
     * @return the response's {@code data}
     * @throws AssertionError when the node does not answer or answers with an error
     */
    static JsonNode ask(final Node n, final String command) {
        try {
            final JsonNode r = new ControlClient(n.controlSocketPath().orElseThrow(), ControlClient.DEFAULT_TIMEOUT)
                    .send(command, null);
            if (!"ok".equals(r.path("status").asText())) {
                throw new AssertionError(command + ": " + r);
            }
            return r.get("data");
        } catch (final ControlClientException e) {
            throw new AssertionError(command + ": " + e.getMessage(), e);
        }
    }

    static String describe(final Node n) {
        final LinkSnapshot s = n.linkSnapshot();
        final StringBuilder sb = new StringBuilder(n.identity().toPeer().shortNpub() + " peers=" + s.peers().size()
                + " dials=" + s.pendingOutbound() + " dp{");
        for (final DataPlaneCounter c : DataPlaneCounter.values()) {
            final long v = n.dataPlane().counter(c);
            if (v != 0) {
                sb.append(c).append('=').append(v).append(' ');
            }
        }
        sb.append("} link{");
        for (final LinkCounter c : LinkCounter.values()) {
            if (s.counter(c) != 0) {
                sb.append(c).append('=').append(s.counter(c)).append(' ');
            }
        }
        sb.append('}');
        for (final PeerSnapshot p : s.peers()) {
            sb.append(' ').append(p);
        }
        return sb.toString();
    }

    /** Collects what a node's sessions deliver (copies; test code may allocate). */
    static final class Collector {
        final ConcurrentLinkedQueue<byte[]> packets = new ConcurrentLinkedQueue<>();

        Ipv6Sink sink() {
            return (segment, offset, length) -> {
                final byte[] b = new byte[length];
                MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, offset, b, 0, length);
                packets.add(b);
                return length;
            };
        }
    }

    /** The sequence number test packets carry at bytes 48-55 (after the IPv6 and UDP headers), or -1. */
    static long seqOf(final byte[] p) {
        return p.length >= 56 ? ByteBuffer.wrap(p).getLong(48) : -1;
    }

    /** Sends {@code packet} from {@code from} every 300 ms until {@code at} has one with its sequence number (20 s). */
    static void deliver(final Node from, final Collector at, final byte[] packet, final long seq) {
        final long deadline = System.nanoTime() + 20 * SECOND;
        long next = 0;
        while (at.packets.stream().noneMatch(p -> p.length == packet.length && seqOf(p) == seq)) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("packet " + seq + " never arrived; from " + describe(from));
            }
            if (System.nanoTime() - next >= 0) {
                from.dataPlane().sendIpv6(packet);
                next = System.nanoTime() + 300_000_000L;
            }
            LockSupport.parkNanos(1_000_000L);
        }
    }

    /**
     * Counts sequenced datagrams as a {@link LocalDelivery} hook: any gap or reordering is remembered as the
     * first problem. Runs on one data-plane worker thread; readers poll {@link #delivered()}.
     */
    static final class SequenceCheck implements LocalDelivery {
        private final AtomicLong next = new AtomicLong();
        private final AtomicReference<String> problem = new AtomicReference<>();

        @Override
        public void deliver(final long linkId, final MemorySegment segment, final long offset, final int length) {
            if (length < SessionDatagramHeader.SIZE + 8) {
                return;   // not one of ours
            }
            final long seq = segment.get(SEQ, offset + SessionDatagramHeader.SIZE);
            final long expected = next.get();
            if (seq != expected) {
                problem.compareAndSet(null, "expected datagram " + expected + " but got " + seq);
            }
            next.set(Math.max(expected, seq + 1));
        }

        long delivered() {
            return next.get();
        }

        String problem() {
            return problem.get();
        }
    }

    /**
     * Sends sequenced datagrams over one link, keeping at most {@code window} of them unacknowledged by the
     * receiver's {@link SequenceCheck}, so neither a ring nor a socket buffer can overflow and any loss is real.
     */
    static final class Sender {
        private final Node from;
        private final SequenceCheck receiver;
        private final MemorySegment buf;
        private long sent;

        Sender(final Node from, final Node to, final SequenceCheck receiver) {
            this.from = from;
            this.receiver = receiver;
            final byte[] pad = new byte[DATAGRAM_BYTES - SessionDatagramHeader.SIZE];
            final byte[] bytes = new SessionDatagram(64, 1280, from.identity().nodeAddr(),
                    to.identity().nodeAddr(), pad).encode();
            this.buf = MemorySegment.ofArray(bytes);
        }

        /**
         * Sends until {@code more} says stop, within the window.
         *
         * @param linkId the link
         * @param window most datagrams in flight
         * @param more   checked between sends
         * @return datagrams sent
         */
        long run(final long linkId, final int window, final BooleanSupplier more) {
            while (more.getAsBoolean()) {
                if (sent - receiver.delivered() >= window) {
                    LockSupport.parkNanos(50_000L);
                    continue;
                }
                buf.set(SEQ, SessionDatagramHeader.SIZE, sent);
                if (from.dataPlane().sendDatagram(linkId, buf, 0, (int) buf.byteSize())) {
                    sent++;
                } else {
                    LockSupport.parkNanos(50_000L);
                }
            }
            return sent;
        }

        long sent() {
            return sent;
        }
    }
}
