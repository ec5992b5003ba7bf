package net.fips.dataplane.engine;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.function.Supplier;

import net.fips.dataplane.LinkSpec;
import net.fips.dataplane.SessionSpec;
import net.fips.dataplane.crypto.AeadCipher;
import net.fips.dataplane.ipv6.Ipv6Packet;
import net.fips.dataplane.route.ForwardingTable;
import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.udp.UdpTransport;
import net.fips.dataplane.udp.UdpTransportConfig;
import net.fips.dataplane.wire.Coords;
import net.fips.dataplane.wire.NodeAddr;

/**
 * Synthetic traffic through the real session path, so that the JIT compiles it before the first real packet needs
 * it (the daemon's start-up warm-up) or so that a training run records it (the daemon's ahead-of-time cache).
 * Two private data planes in {@link ThreadingMode#SHARED} mode, each with one UDP transport bound to an ephemeral
 * port of {@code 127.0.0.1}, one link and one end-to-end session between them with random keys made here: every
 * round offers one ICMPv6 echo request (ping-sized), one TCP segment and one 1400-byte UDP packet each way, as the
 * TUN reader hands packets over, and pumps both data planes until all six come out of the other side's IPv6 sink
 * (compress to the port-256 shim, FSP seal, SessionDatagram, FMP seal, sendmmsg; recvmmsg, FMP open, route, FSP
 * open, header rebuilt, MSS clamp). The traffic never leaves the loopback interface of the caller's network
 * namespace; the node's own data plane, transports, peers and TUN device are not involved.
 *
 * <p>Not thread-safe: one thread opens, runs and closes it. The pool is small (a few hundred kilobytes off-heap)
 * and freed by {@link #close()}.
 */
public final class PathExercise implements AutoCloseable {
    private static final NodeAddr ADDR_A = NodeAddr.of(0x3000_0000_0000_0000L, 0x0100);
    private static final NodeAddr ADDR_B = NodeAddr.of(0x1000_0000_0000_0000L, 0x0100);
    private static final int MTU = 1500;
    private static final int SLOTS = 256;
    private static final long ROUND_DEADLINE_NS = 1_000_000_000L;
    /** Packets offered per round and direction. */
    public static final int PACKETS_PER_ROUND = 3;

    private final Arena arena = Arena.ofConfined();
    private final long[] delivered = new long[2];
    private final DataPlane a;
    private final DataPlane b;
    private final MemorySegment[] toB;
    private final MemorySegment[] toA;
    private long lost;

    private PathExercise(final Supplier<AeadCipher> ciphers) throws IOException {
        DataPlane pa = null;
        DataPlane pb = null;
        try {
            pa = plane(ciphers, ADDR_A, ADDR_B, 0);
            pb = plane(ciphers, ADDR_B, ADDR_A, 1);
        } catch (final IOException | RuntimeException e) {
            if (pa != null) {
                pa.close();
            }
            arena.close();
            throw e;
        }
        a = pa;
        b = pb;
        final SecureRandom random = new SecureRandom();
        final byte[][] k = new byte[4][32];
        for (final byte[] key : k) {
            random.nextBytes(key);
        }
        final long now = System.nanoTime();
        a.addLink(new LinkSpec(1, 0, TransportAddr.ofInet(b.udpTransport(0).localAddress()), 0x11, 0x12, k[0], k[1],
                now));
        b.addLink(new LinkSpec(1, 0, TransportAddr.ofInet(a.udpTransport(0).localAddress()), 0x12, 0x11, k[1], k[0],
                now));
        a.addSession(new SessionSpec(ADDR_B, k[2], k[3], false, now, 64));
        b.addSession(new SessionSpec(ADDR_A, k[3], k[2], false, now, 64));
        toB = packets(ADDR_A, ADDR_B);
        toA = packets(ADDR_B, ADDR_A);
    }

    /**
     * Opens the two data planes and their loopback sockets.
     *
     * @param ciphers the AEAD engines to use (the node's own choice, so the same backend is exercised)
     * @throws IOException when a socket cannot be bound (no loopback interface, e.g.)
     */
    public static PathExercise open(final Supplier<AeadCipher> ciphers) throws IOException {
        return new PathExercise(ciphers);
    }

    private DataPlane plane(final Supplier<AeadCipher> ciphers, final NodeAddr self, final NodeAddr peer,
                            final int side) throws IOException {
        final DataPlane dp = new DataPlane(new DataPlaneContext().threadingMode(ThreadingMode.SHARED)
                .workerCount(1).poolSlots(SLOTS).ringCapacity(64).eventQueueCapacity(64).maxMtuBytes(MTU)
                .cipherSupplier(ciphers).sessionPath(true).ipv6SinkSupplier(() -> (seg, off, len) -> {
                    delivered[side]++;
                    return len;
                }));
        try {
            dp.addTransport(UdpTransport.open(new UdpTransportConfig().bindAddress("127.0.0.1:0").mtuBytes(MTU)));
            dp.start();
        } catch (final IOException | RuntimeException e) {
            dp.close();
            throw e;
        }
        dp.setForwardingTable(ForwardingTable.builder(self, Coords.of(self, peer))
                .peer(new ForwardingTable.Peer(peer, 1, Coords.of(peer), 1.0, MTU, true,
                        ForwardingTable.TreeRole.PARENT))
                .build());
        return dp;
    }

    private MemorySegment[] packets(final NodeAddr src, final NodeAddr dst) {
        return new MemorySegment[] {packet(src, dst, Ipv6Packet.PROTO_ICMPV6, 64), packet(src, dst,
                Ipv6Packet.PROTO_TCP, 1200), packet(src, dst, Ipv6Packet.PROTO_UDP, 1400)};
    }

    /** An IPv6 packet of {@code total} bytes from {@code src}'s FIPS address to {@code dst}'s. */
    private MemorySegment packet(final NodeAddr src, final NodeAddr dst, final int proto, final int total) {
        final int l4 = total - Ipv6Packet.HEADER_SIZE;
        final ByteBuffer p = ByteBuffer.allocate(total);
        p.putInt(0x6000_0000).putShort((short) l4).put((byte) proto).put((byte) 64);
        p.putLong(Ipv6Packet.fipsAddressHi(src.hi())).putLong(Ipv6Packet.fipsAddressLo(src.hi(), src.lo()));
        p.putLong(Ipv6Packet.fipsAddressHi(dst.hi())).putLong(Ipv6Packet.fipsAddressLo(dst.hi(), dst.lo()));
        switch (proto) {
            case Ipv6Packet.PROTO_ICMPV6 -> p.put((byte) 128).put((byte) 0).putShort((short) 0)
                    .putShort((short) 1).putShort((short) 1);                     // echo request, id 1, seq 1
            case Ipv6Packet.PROTO_TCP -> p.putShort((short) 40000).putShort((short) 5201).putInt(1).putInt(1)
                    .put((byte) 0x50).put((byte) 0x10).putShort((short) 512);    // ACK, 20-byte header
            default -> p.putShort((short) 40001).putShort((short) 5201).putShort((short) l4).putShort((short) 0);
        }
        final MemorySegment seg = arena.allocate(total, 64);
        MemorySegment.copy(p.array(), 0, seg, ValueLayout.JAVA_BYTE, 0, total);
        return seg;
    }

    /**
     * Runs {@code rounds} rounds, each waiting (pumping, never sleeping) up to one second for its packets.
     *
     * @return how many packets came out of the sinks in this call
     */
    public long run(final int rounds) {
        final long before = delivered();
        for (int r = 0; r < rounds; r++) {
            final long want = delivered() + 2L * PACKETS_PER_ROUND;
            int offered = 0;
            for (int i = 0; i < PACKETS_PER_ROUND; i++) {
                offered += a.sendIpv6(toB[i], 0, (int) toB[i].byteSize()) ? 1 : 0;
                offered += b.sendIpv6(toA[i], 0, (int) toA[i].byteSize()) ? 1 : 0;
            }
            final long target = want - (2L * PACKETS_PER_ROUND - offered);
            final long start = System.nanoTime();
            while (delivered() < target && System.nanoTime() - start < ROUND_DEADLINE_NS) {
                a.doWork();
                b.doWork();
                a.drainEvents(e -> { });
                b.drainEvents(e -> { });
            }
            lost += Math.max(0, want - delivered());
        }
        return delivered() - before;
    }

    /** @return packets delivered to either sink so far */
    public long delivered() {
        return delivered[0] + delivered[1];
    }

    /** @return packets offered but not delivered (refused by a full queue, or not out within their round) */
    public long lost() {
        return lost;
    }

    /** @return a data plane's counter, summed over both sides */
    public long counter(final DataPlaneCounter counter) {
        return a.counter(counter) + b.counter(counter);
    }

    @Override
    public void close() {
        a.close();
        b.close();
        arena.close();
    }
}
