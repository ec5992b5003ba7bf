package net.fips.bench.dataplane;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;

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
import net.fips.dataplane.crypto.AeadCipher;
import net.fips.dataplane.engine.DataPlane;
import net.fips.dataplane.engine.DataPlaneCounter;
import net.fips.dataplane.engine.ThreadingMode;
import net.fips.dataplane.udp.SendBatch;
import net.fips.dataplane.udp.UdpDestination;
import net.fips.dataplane.udp.UdpTransport;
import net.fips.dataplane.udp.UdpTransportConfig;

/**
 * The receive hot path on one thread: a plain transport sends 32 pre-sealed 1400-byte SessionDatagram frames
 * (sendmmsg, no crypto on the sending side during measurement), then the benchmark thread runs a SHARED-mode data
 * plane until all 32 are received (recvmmsg), dispatched, opened in place and delivered. The frames are sealed
 * once at set-up with consecutive counters; when they run out the link is replaced by a fresh one (new link id,
 * same index and keys) so the replay window starts over. Score: packets/s; {@code -prof gc} should show ~0 B/op.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
@OperationsPerInvocation(RecvOpenBenchmark.BATCH)
public class RecvOpenBenchmark {
    static final int BATCH = 32;
    private static final int FRAMES = 1 << 16;
    private static final int FRAME = 16 + 4 + Links.SIZE + 16;
    private static final long STALL_NS = TimeUnit.MILLISECONDS.toNanos(20);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    @Param({"raw", "link"})
    public String mode;

    private final long[] delivered = new long[1];
    private Arena arena;
    private DataPlane b;
    private UdpTransport peer;
    private UdpDestination toB;
    private SendBatch batch;
    private MemorySegment frames;
    private int next;
    private long linkId = Links.LINK_B;
    private long expected;
    private long lost;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        arena = Arena.ofShared();
        b = Links.plane(mode, ThreadingMode.SHARED, (link, seg, off, len) -> delivered[0]++);
        peer = UdpTransport.open(new UdpTransportConfig().bindAddress("127.0.0.1:0").mtuBytes(Links.MTU));
        toB = peer.destination(b.udpTransport(0).localAddress());
        b.addLink(new LinkSpec(linkId, 0, TransportAddr.ofInet(peer.localAddress()), Links.INDEX_B, Links.INDEX_A,
                Links.key(2), Links.key(1), System.nanoTime()));
        batch = new SendBatch(BATCH);
        frames = arena.allocate((long) FRAMES * FRAME, 64);
        final MemorySegment nonce = arena.allocate(AeadCipher.NONCE_BYTES);
        final MemorySegment key = arena.allocate(AeadCipher.KEY_BYTES);
        key.copyFrom(MemorySegment.ofArray(Links.key(1)));
        try (AeadCipher cipher = Links.ciphers(mode).get()) {
            for (int c = 0; c < FRAMES; c++) {
                final long off = (long) c * FRAME;
                frames.set(ValueLayout.JAVA_BYTE, off, (byte) 0);
                frames.set(ValueLayout.JAVA_BYTE, off + 1, (byte) 0);
                frames.set(ValueLayout.JAVA_SHORT_UNALIGNED, off + 2, (short) (4 + Links.SIZE));
                frames.set(U32, off + 4, Links.INDEX_B);
                frames.set(U64, off + 8, c);
                frames.set(U32, off + 16, 0);
                frames.asSlice(off + 20, Links.SIZE).fill((byte) 0x5a);
                frames.set(ValueLayout.JAVA_BYTE, off + 20, (byte) 0);
                AeadCipher.fipsNonce(nonce, c);
                cipher.seal(key, nonce, frames, off, 16, frames, off + 16, 4 + Links.SIZE);
            }
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        System.out.printf("%n%s: delivered %d, lost %d, auth failures %d, rx %s%n", mode, delivered[0], lost,
                b.counter(DataPlaneCounter.DROP_AUTH_FAILED), b.udpTransport(0).counters());
        b.close();
        peer.close();
        arena.close();
    }

    @Benchmark
    public long receiveAndOpen() {
        if (next + BATCH > FRAMES) {
            renewLink();
        }
        batch.clear();
        for (int i = 0; i < BATCH; i++) {
            batch.add(frames, (long) (next + i) * FRAME, FRAME, toB);
        }
        next += BATCH;
        peer.send(batch);
        expected += BATCH;
        final long start = System.nanoTime();
        while (delivered[0] + lost < expected) {
            if (b.doWork() == 0 && System.nanoTime() - start > STALL_NS) {
                lost = expected - delivered[0];
            }
        }
        return delivered[0];
    }

    /** Counters are exhausted: a new link with a fresh replay window takes over the same index. */
    private void renewLink() {
        b.removeLink(linkId);
        linkId++;
        b.addLink(new LinkSpec(linkId, 0, TransportAddr.ofInet(peer.localAddress()), Links.INDEX_B, Links.INDEX_A,
                Links.key(2), Links.key(1), System.nanoTime()));
        next = 0;
    }
}
