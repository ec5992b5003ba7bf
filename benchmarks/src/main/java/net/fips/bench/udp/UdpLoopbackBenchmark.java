package net.fips.bench.udp;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
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

import net.fips.dataplane.udp.ReceiveBatch;
import net.fips.dataplane.udp.SendBatch;
import net.fips.dataplane.udp.TraversalSocket;
import net.fips.dataplane.udp.UdpDestination;
import net.fips.dataplane.udp.UdpTransport;
import net.fips.dataplane.udp.UdpTransportConfig;

/**
 * Loopback UDP throughput, sender and receiver on one thread: each invocation sends a batch of 32 packets of
 * 1400 bytes and receives them back, so the score is packets per second through the whole kernel path.
 * {@code datagramChannel} is the JDK baseline (one syscall per packet each way); {@code sendmmsg} and {@code gso}
 * use the FFM transport (recvmmsg on receive; sendmmsg, or one sendmsg+UDP_SEGMENT per batch, on send);
 * {@code gsogro} is {@code gso} to a receiver with UDP_GRO, which the kernel hands each train whole and the
 * transport splits into slots.
 * {@code adopted} is {@code sendmmsg} between two NAT-traversal adoption slots, each holding a socket opened as a
 * {@link TraversalSocket} and adopted with {@code dup3} (ADR 0046): the same code path, checked for equal speed and
 * for no allocation per packet.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
@OperationsPerInvocation(UdpLoopbackBenchmark.BATCH)
public class UdpLoopbackBenchmark {
    static final int BATCH = 32;
    static final int SIZE = 1400;
    private static final long WAIT_NS = TimeUnit.MILLISECONDS.toNanos(20);

    @Param({"datagramChannel", "sendmmsg", "gso", "gsogro", "adopted"})
    public String mode;

    private Arena arena;
    private UdpTransport tx;
    private UdpTransport rx;
    private SendBatch sendBatch;
    private ReceiveBatch receiveBatch;

    private DatagramChannel txChannel;
    private DatagramChannel rxChannel;
    private InetSocketAddress rxAddress;
    private ByteBuffer[] outBuffers;
    private ByteBuffer inBuffer;

    /** Packets that did not come back (loopback drops); reported in the teardown line. */
    private long lost;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        final InetAddress lo = InetAddress.getLoopbackAddress();
        if ("datagramChannel".equals(mode)) {
            rxChannel = DatagramChannel.open().bind(new InetSocketAddress(lo, 0));
            rxChannel.setOption(StandardSocketOptions.SO_RCVBUF, 2 * 1024 * 1024);
            rxChannel.configureBlocking(false);
            txChannel = DatagramChannel.open().bind(new InetSocketAddress(lo, 0));
            txChannel.setOption(StandardSocketOptions.SO_SNDBUF, 2 * 1024 * 1024);
            rxAddress = (InetSocketAddress) rxChannel.getLocalAddress();
            outBuffers = new ByteBuffer[BATCH];
            for (int i = 0; i < BATCH; i++) {
                outBuffers[i] = ByteBuffer.allocateDirect(SIZE);
            }
            inBuffer = ByteBuffer.allocateDirect(2048);
            return;
        }
        arena = Arena.ofShared();
        if ("adopted".equals(mode)) {
            tx = adoptedSlot();
            rx = adoptedSlot();
        } else {
            tx = UdpTransport.open(new UdpTransportConfig().bindAddress("127.0.0.1:0").mtuBytes(SIZE)
                    .gso(mode.startsWith("gso")));
            rx = UdpTransport.open(new UdpTransportConfig().bindAddress("127.0.0.1:0").mtuBytes(SIZE).gso(false)
                    .gro("gsogro".equals(mode)));
        }
        final UdpDestination dst = tx.destination(rx.localAddress());
        final MemorySegment out = arena.allocate((long) BATCH * SIZE, 64);
        sendBatch = new SendBatch(BATCH);
        for (int i = 0; i < BATCH; i++) {
            out.asSlice((long) i * SIZE, SIZE).fill((byte) i);
            sendBatch.add(out, (long) i * SIZE, SIZE, dst);
        }
        final MemorySegment in = arena.allocate((long) BATCH * 2048, 64);
        receiveBatch = new ReceiveBatch(arena, BATCH);
        for (int i = 0; i < BATCH; i++) {
            receiveBatch.slot(i, in, (long) i * 2048, 2048);
        }
        receiveBatch.offer(BATCH);
    }

    private static UdpTransport adoptedSlot() throws IOException {
        final UdpTransport slot = UdpTransport.openAdoptionSlot(new UdpTransportConfig().mtuBytes(SIZE).gso(false));
        try (TraversalSocket punched = TraversalSocket.open(new InetSocketAddress("127.0.0.1", 0))) {
            slot.adopt(punched);
        }
        return slot;
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        if (tx != null) {
            System.out.println("\n" + mode + ": lost " + lost + "; tx " + tx.counters() + "; rx " + rx.counters());
            tx.close();
            rx.close();
            arena.close();
        }
        if (txChannel != null) {
            System.out.println("\n" + mode + ": lost " + lost);
            txChannel.close();
            rxChannel.close();
        }
    }

    /** One batch out and back. @return packets received */
    @Benchmark
    public int roundTrip() throws IOException {
        return "datagramChannel".equals(mode) ? viaChannel() : viaTransport();
    }

    private int viaTransport() {
        tx.send(sendBatch);
        int got = 0;
        long deadline = 0;
        while (got < BATCH) {
            final int n = rx.receive(receiveBatch, 0);
            if (n > 0) {
                got += n;
                continue;
            }
            final long now = System.nanoTime();
            if (deadline == 0) {
                deadline = now + WAIT_NS;
            } else if (now - deadline > 0) {
                lost += BATCH - got;
                break;
            }
            Thread.onSpinWait();
        }
        return got;
    }

    private int viaChannel() throws IOException {
        for (int i = 0; i < BATCH; i++) {
            final ByteBuffer b = outBuffers[i];
            b.clear();
            txChannel.send(b, rxAddress);
        }
        int got = 0;
        long deadline = 0;
        while (got < BATCH) {
            inBuffer.clear();
            if (rxChannel.receive(inBuffer) != null) {
                got++;
                continue;
            }
            final long now = System.nanoTime();
            if (deadline == 0) {
                deadline = now + WAIT_NS;
            } else if (now - deadline > 0) {
                lost += BATCH - got;
                break;
            }
            Thread.onSpinWait();
        }
        return got;
    }
}
