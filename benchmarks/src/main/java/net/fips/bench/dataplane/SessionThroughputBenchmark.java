package net.fips.bench.dataplane;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.LinkSpec;
import net.fips.dataplane.SessionSpec;
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

/**
 * The full session path, both directions, on loopback: A's data plane takes 1400-byte IPv6 packets as the TUN
 * reader hands them over (copied into a slot: {@link DataPlane#sendIpv6(MemorySegment, long, int)}), compresses
 * them to the port-256 shim, FSP-seals them in place, wraps them in a SessionDatagram, FMP-seals them and sends
 * them; C's data plane receives, FMP-opens, FSP-opens, rebuilds the IPv6 header in place and writes each packet to
 * its IPv6 sink (a counter standing in for the TUN write). Each side on its own threads; windowed like
 * {@link TransitThroughputBenchmark}. With {@code -prof gc}, B/op covers both sides' threads in this JVM.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
@OperationsPerInvocation(SessionThroughputBenchmark.BATCH)
public class SessionThroughputBenchmark {
    static final int BATCH = 32;
    /** The IPv6 packet: 1400 bytes, which with 77 bytes of encapsulation fits a 1500-byte transport MTU. */
    static final int PACKET = 1400;
    private static final NodeAddr ADDR_A = NodeAddr.of(0x3000_0000_0000_0000L, 0x0100);
    private static final NodeAddr ADDR_C = NodeAddr.of(0x1000_0000_0000_0000L, 0x0100);

    @Param({"link"})
    public String mode;

    private final AtomicLong delivered = new AtomicLong();
    private DataPlane a;
    private DataPlane c;
    private MemorySegment packet;
    private final DeliveryWindow window = new DeliveryWindow(delivered);

    private DataPlane plane(final NodeAddr self, final NodeAddr peer) throws IOException {
        final DataPlane dp = new DataPlane(new DataPlaneContext().threadingMode(ThreadingMode.DEDICATED)
                .workerCount(1).poolSlots(8192).ringCapacity(1024).cipherSupplier(Links.ciphers(mode))
                .sessionPath(true).ipv6SinkSupplier(() -> (seg, off, len) -> {
                    delivered.incrementAndGet();
                    return len;
                }));
        dp.addTransport(UdpTransport.open(new UdpTransportConfig().bindAddress("127.0.0.1:0").mtuBytes(Links.MTU)
                .receiveBufferBytes(4 << 20).sendBufferBytes(4 << 20)));
        dp.start();
        dp.setForwardingTable(ForwardingTable.builder(self, Coords.of(self, peer))
                .peer(new ForwardingTable.Peer(peer, 1, Coords.of(peer), 1.0, Links.MTU, true,
                        ForwardingTable.TreeRole.PARENT))
                .build());
        return dp;
    }

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        a = plane(ADDR_A, ADDR_C);
        c = plane(ADDR_C, ADDR_A);
        a.addLink(new LinkSpec(1, 0, TransportAddr.ofInet(c.udpTransport(0).localAddress()), 0x11, 0x12, Links.key(1), Links.key(2),
                System.nanoTime()));
        c.addLink(new LinkSpec(1, 0, TransportAddr.ofInet(a.udpTransport(0).localAddress()), 0x12, 0x11, Links.key(2), Links.key(1),
                System.nanoTime()));
        a.addSession(new SessionSpec(ADDR_C, Links.key(5), Links.key(6), false, System.nanoTime(), 64));
        c.addSession(new SessionSpec(ADDR_A, Links.key(6), Links.key(5), false, System.nanoTime(), 64));
        final ByteBuffer b = ByteBuffer.allocate(PACKET);
        b.putInt(0x6000_0000).putShort((short) (PACKET - 40)).put((byte) 17).put((byte) 64);
        b.putLong(Ipv6Packet.fipsAddressHi(ADDR_A.hi())).putLong(Ipv6Packet.fipsAddressLo(ADDR_A.hi(), ADDR_A.lo()));
        b.putLong(Ipv6Packet.fipsAddressHi(ADDR_C.hi())).putLong(Ipv6Packet.fipsAddressLo(ADDR_C.hi(), ADDR_C.lo()));
        b.putShort((short) 4000).putShort((short) 5000).putShort((short) (PACKET - 40)).putShort((short) 0);
        packet = Arena.ofShared().allocate(PACKET, 64);
        MemorySegment.copy(b.array(), 0, packet, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, PACKET);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        System.out.printf("%nsent %d, delivered %d, written off %d; A out %d, C in %d%n", window.sent(),
                delivered.get(), window.lost(), a.counter(DataPlaneCounter.SESSION_PACKETS_OUT),
                c.counter(DataPlaneCounter.SESSION_PACKETS_IN));
        System.out.printf("drops: A %s; C %s; C rx %s%n", Links.drops(a), Links.drops(c), c.udpTransport(0).counters());
        a.close();
        c.close();
    }

    /** Offers {@link #BATCH} packets, then waits for the window to open. */
    @Benchmark
    public long push() {
        for (int i = 0; i < BATCH; i++) {
            while (!a.sendIpv6(packet, 0, PACKET)) {
                Thread.onSpinWait();
            }
        }
        return window.sentAndWait(BATCH);
    }
}
