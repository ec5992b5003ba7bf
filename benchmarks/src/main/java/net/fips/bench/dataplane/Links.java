package net.fips.bench.dataplane;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.function.Supplier;

import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.Ipv6Sink;
import net.fips.dataplane.LinkSpec;
import net.fips.dataplane.SessionSpec;
import net.fips.dataplane.LocalDelivery;
import net.fips.dataplane.crypto.AeadCipher;
import net.fips.dataplane.crypto.AeadCiphers;
import net.fips.dataplane.engine.DataPlane;
import net.fips.dataplane.engine.DataPlaneContext;
import net.fips.dataplane.engine.DataPlaneCounter;
import net.fips.dataplane.engine.ThreadingMode;
import net.fips.dataplane.ipv6.Ipv6Packet;
import net.fips.dataplane.route.ForwardingTable;
import net.fips.dataplane.udp.UdpTransport;
import net.fips.dataplane.udp.UdpTransportConfig;
import net.fips.dataplane.wire.Coords;
import net.fips.dataplane.wire.NodeAddr;

/** Shared set-up of the data-plane benchmarks: data planes on loopback and a link between them. */
final class Links {
    static final int SIZE = 1400;
    static final int MTU = 1500;
    static final long LINK_A = 1;
    static final long LINK_B = 2;
    static final int INDEX_A = 0x0A0A_0A0A;
    static final int INDEX_B = 0x0B0B_0B0B;

    private Links() {
    }

    /** @return the data plane's non-zero DROP_* counters as {@code NAME=n ...}, or {@code none} (teardown reports) */
    static String drops(final DataPlane dp) {
        final StringBuilder sb = new StringBuilder();
        for (final DataPlaneCounter c : DataPlaneCounter.values()) {
            if (c.name().startsWith("DROP_") && dp.counter(c) != 0) {
                sb.append(c).append('=').append(dp.counter(c)).append(' ');
            }
        }
        return sb.isEmpty() ? "none" : sb.toString().trim();
    }

    /** @return the cipher factory for a mode: {@code link} = the default backend, {@code raw} = no crypto */
    static Supplier<AeadCipher> ciphers(final String mode) {
        return switch (mode) {
            case "link" -> AeadCiphers::create;
            case "raw" -> NoAeadCipher::new;
            default -> throw new IllegalArgumentException("mode " + mode);
        };
    }

    static DataPlane plane(final String mode, final ThreadingMode threading, final LocalDelivery delivery)
            throws IOException {
        return plane(mode, threading, delivery, DataPlaneContext.IDLE_PARK_BOUND_NS_DEFAULT);
    }

    /** @param idleParkBoundNs see {@link DataPlaneContext#idleParkBoundNs(long)} */
    static DataPlane plane(final String mode, final ThreadingMode threading, final LocalDelivery delivery,
                           final long idleParkBoundNs) throws IOException {
        final DataPlane dp = new DataPlane(new DataPlaneContext().threadingMode(threading).poolSlots(8192)
                .ringCapacity(1024).cipherSupplier(ciphers(mode)).localDelivery(delivery)
                .idleParkBoundNs(idleParkBoundNs));
        dp.addTransport(UdpTransport.open(new UdpTransportConfig().bindAddress("127.0.0.1:0").mtuBytes(MTU)
                .receiveBufferBytes(4 << 20).sendBufferBytes(4 << 20)));
        dp.start();
        return dp;
    }

    static byte[] key(final int seed) {
        final byte[] k = new byte[32];
        for (int i = 0; i < k.length; i++) {
            k[i] = (byte) (seed + i);
        }
        return k;
    }

    /** Links A and B (A sends with key 1, B with key 2). */
    static void connect(final DataPlane a, final DataPlane b) {
        a.addLink(new LinkSpec(LINK_A, 0, TransportAddr.ofInet(b.udpTransport(0).localAddress()), INDEX_A, INDEX_B,
                key(1), key(2), System.nanoTime()));
        b.addLink(new LinkSpec(LINK_B, 0, TransportAddr.ofInet(a.udpTransport(0).localAddress()), INDEX_B, INDEX_A,
                key(2), key(1), System.nanoTime()));
    }

    /** The two ends of the session benchmarks: A sends, C receives (C is A's tree parent and the reverse). */
    static final NodeAddr SESSION_A = NodeAddr.of(0x3000_0000_0000_0000L, 0x0100);
    static final NodeAddr SESSION_C = NodeAddr.of(0x1000_0000_0000_0000L, 0x0100);

    /**
     * A one-worker data plane with the session path on, on a loopback UDP transport, whose decrypted IPv6 packets go
     * to {@code sink}, with {@code peer} as its only peer and tree parent.
     */
    static DataPlane sessionPlane(final String mode, final ThreadingMode threading, final NodeAddr self,
                                  final NodeAddr peer, final Ipv6Sink sink) throws IOException {
        final DataPlane dp = new DataPlane(new DataPlaneContext().threadingMode(threading)
                .workerCount(1).poolSlots(8192).ringCapacity(1024).cipherSupplier(ciphers(mode))
                .sessionPath(true).ipv6SinkSupplier(() -> sink));
        dp.addTransport(UdpTransport.open(new UdpTransportConfig().bindAddress("127.0.0.1:0").mtuBytes(MTU)
                .receiveBufferBytes(4 << 20).sendBufferBytes(4 << 20)));
        dp.start();
        dp.setForwardingTable(ForwardingTable.builder(self, Coords.of(self, peer))
                .peer(new ForwardingTable.Peer(peer, 1, Coords.of(peer), 1.0, MTU, true,
                        ForwardingTable.TreeRole.PARENT))
                .build());
        return dp;
    }

    /** Links the planes of {@link #SESSION_A} and {@link #SESSION_C} and installs their session both ways. */
    static void connectSession(final DataPlane a, final DataPlane c) {
        a.addLink(new LinkSpec(1, 0, TransportAddr.ofInet(c.udpTransport(0).localAddress()), 0x11, 0x12,
                key(1), key(2), System.nanoTime()));
        c.addLink(new LinkSpec(1, 0, TransportAddr.ofInet(a.udpTransport(0).localAddress()), 0x12, 0x11,
                key(2), key(1), System.nanoTime()));
        a.addSession(new SessionSpec(SESSION_C, key(5), key(6), false, System.nanoTime(), 64));
        c.addSession(new SessionSpec(SESSION_A, key(6), key(5), false, System.nanoTime(), 64));
    }

    /** A UDP-in-IPv6 packet of {@code bytes} bytes from A's FIPS address to C's, in shared off-heap memory. */
    static MemorySegment udpPacketAToC(final int bytes) {
        final ByteBuffer b = ByteBuffer.allocate(bytes);
        b.putInt(0x6000_0000).putShort((short) (bytes - 40)).put((byte) 17).put((byte) 64);
        b.putLong(Ipv6Packet.fipsAddressHi(SESSION_A.hi()))
                .putLong(Ipv6Packet.fipsAddressLo(SESSION_A.hi(), SESSION_A.lo()));
        b.putLong(Ipv6Packet.fipsAddressHi(SESSION_C.hi()))
                .putLong(Ipv6Packet.fipsAddressLo(SESSION_C.hi(), SESSION_C.lo()));
        b.putShort((short) 4000).putShort((short) 5000).putShort((short) (bytes - 40)).putShort((short) 0);
        final MemorySegment packet = Arena.ofShared().allocate(bytes, 64);
        MemorySegment.copy(b.array(), 0, packet, ValueLayout.JAVA_BYTE, 0, bytes);
        return packet;
    }
}
