package net.fips.bench.dataplane;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import net.fips.dataplane.tun.TcpOffload;
import net.fips.dataplane.tun.TunCoalescer;
import net.fips.dataplane.tun.VnetOutput;

/**
 * The TUN offload work per super-segment, expected at 0 B/op with {@code -prof gc}: split a 64 KiB IPv6/TCP
 * super-segment (the kernel's TSO hand-over, 53 segments of 1208 bytes, the 1280 MTU's MSS with timestamps) into
 * slot-sized segments with headers and checksums fixed, and coalesce those 53 segments back into one train (what
 * the receiving worker does before one TUN write; the write itself is a no-op here).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class TunOffloadBenchmark {
    private static final ValueLayout.OfShort BE_SHORT =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final int MSS = 1208;
    private static final int HDR = 72;
    private static final int SEGMENTS = 53;
    private static final int SLOT = 2048;
    private static final int SLOT_OFF = 256;

    private Arena arena;
    private MemorySegment frame;
    private int frameLen;
    private MemorySegment slots;
    private TunCoalescer coalescer;
    private int[] lengths;

    /** Builds the super-segment and a no-op output. */
    @Setup
    public void setup() {
        arena = Arena.ofConfined();
        frameLen = HDR + SEGMENTS * MSS;
        frame = arena.allocate(frameLen);
        for (int i = 0; i < frameLen; i++) {
            frame.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31));
        }
        frame.set(ValueLayout.JAVA_BYTE, 0, (byte) 0x60);
        frame.set(BE_SHORT, 4, (short) (frameLen - 40));
        frame.set(ValueLayout.JAVA_BYTE, 6, (byte) 6);
        frame.set(ValueLayout.JAVA_BYTE, 40 + 12, (byte) ((HDR - 40) / 4 << 4));
        frame.set(ValueLayout.JAVA_BYTE, 40 + 13, (byte) TcpOffload.ACK);
        slots = arena.allocate((long) SLOT * SEGMENTS);
        lengths = new int[SEGMENTS];
        coalescer = new TunCoalescer(new VnetOutput() {
            @Override
            public int write(final MemorySegment segment, final long offset, final int length) {
                return length;
            }

            @Override
            public int writeVnet(final MemorySegment header, final MemorySegment segment, final long offset,
                                 final int length) {
                return length;
            }
        }, arena);
        split();
    }

    /** @return bytes of the last segment (consumed) */
    @Benchmark
    public int split() {
        final int n = TcpOffload.segmentCount(frameLen, HDR, MSS);
        int last = 0;
        for (int i = 0; i < n; i++) {
            last = TcpOffload.writeSegment(frame, 0, frameLen, HDR, MSS, i, slots, (long) i * SLOT + SLOT_OFF);
            lengths[i] = last;
        }
        return last;
    }

    /** @return packets lost (0) */
    @Benchmark
    public int coalesce() {
        for (int i = 0; i < SEGMENTS; i++) {
            coalescer.write(slots, (long) i * SLOT + SLOT_OFF, lengths[i]);
        }
        return coalescer.flush();
    }

    /** Frees the memory. */
    @TearDown
    public void tearDown() {
        arena.close();
    }
}
