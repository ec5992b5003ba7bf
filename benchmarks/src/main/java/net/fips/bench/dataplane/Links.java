package net.fips.bench.dataplane;

import java.io.IOException;
import java.util.function.Supplier;

import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.LinkSpec;
import net.fips.dataplane.LocalDelivery;
import net.fips.dataplane.crypto.AeadCipher;
import net.fips.dataplane.crypto.AeadCiphers;
import net.fips.dataplane.engine.DataPlane;
import net.fips.dataplane.engine.DataPlaneContext;
import net.fips.dataplane.engine.DataPlaneCounter;
import net.fips.dataplane.engine.ThreadingMode;
import net.fips.dataplane.udp.UdpTransport;
import net.fips.dataplane.udp.UdpTransportConfig;

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

    /** @return the cipher factory for a mode: {@code link} = the default backend, {@code raw} = no crypto */
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
        a.addLink(new LinkSpec(LINK_A, 0, TransportAddr.ofInet(b.udpTransport(0).localAddress()), INDEX_A, INDEX_B, key(1), key(2),
                System.nanoTime()));
        b.addLink(new LinkSpec(LINK_B, 0, TransportAddr.ofInet(a.udpTransport(0).localAddress()), INDEX_B, INDEX_A, key(2), key(1),
                System.nanoTime()));
    }
}
