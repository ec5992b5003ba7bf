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

import net.fips.dataplane.ipv6.Icmpv6Errors;
import net.fips.dataplane.ipv6.Ipv6Packet;
import net.fips.dataplane.ipv6.PtbRateLimiter;
import net.fips.dataplane.ipv6.ShimBody;
import net.fips.dataplane.ipv6.TcpMssClamp;

/**
 * The IPv6 adapter's per-packet functions over off-heap slot memory, all expected at 0 B/op with {@code -prof gc}:
 * shim body encode + decode in place of a 1203-byte IPv6 packet (the 1280 transport MTU budget), MSS clamp of a
 * SYN (restoring MSS and checksum first, two stores), and a Packet Too Big build plus limiter check.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class Ipv6AdapterBenchmark {
    private static final ValueLayout.OfShort BE_SHORT =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final int OFF = 512;
    private static final int LEN = 1203;

    private Arena arena;
    private MemorySegment slot;
    private MemorySegment syn;
    private MemorySegment icmp;
    private short synChecksum;
    private long srcHi;
    private long srcLo;
    private long dstHi;
    private long dstLo;
    private final PtbRateLimiter limiter = new PtbRateLimiter();
    private long now;

    /** A 1203-byte IPv6/TCP packet at offset 512 of a 2048-byte slot, and a 80-byte SYN with MSS 1460. */
    @Setup
    public void setup() {
        arena = Arena.ofConfined();
        slot = arena.allocate(2048);
        writeIpv6(slot, OFF, LEN, 6);
        for (int i = 40; i < LEN; i++) {
            slot.set(ValueLayout.JAVA_BYTE, OFF + i, (byte) i);
        }
        srcHi = Ipv6Packet.srcHi(slot, OFF);
        srcLo = Ipv6Packet.srcLo(slot, OFF);
        dstHi = Ipv6Packet.dstHi(slot, OFF);
        dstLo = Ipv6Packet.dstLo(slot, OFF);

        syn = arena.allocate(80);
        writeIpv6(syn, 0, 80, 6);
        syn.set(ValueLayout.JAVA_BYTE, 52, (byte) 0xa0);
        syn.set(ValueLayout.JAVA_BYTE, 53, (byte) 0x02);
        syn.set(ValueLayout.JAVA_BYTE, 60, (byte) 2);
        syn.set(ValueLayout.JAVA_BYTE, 61, (byte) 4);
        syn.set(BE_SHORT, 62, (short) 1460);
        TcpMssClamp.recalculateL4Checksum(syn, 0, 80);
        synChecksum = syn.get(BE_SHORT, 56);

        icmp = arena.allocate(1280);
    }

    private static void writeIpv6(final MemorySegment s, final int off, final int len, final int nextHeader) {
        s.set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), off, 0x6ABFEDCB);
        s.set(BE_SHORT, off + 4, (short) (len - 40));
        s.set(ValueLayout.JAVA_BYTE, off + 6, (byte) nextHeader);
        s.set(ValueLayout.JAVA_BYTE, off + 7, (byte) 64);
        s.set(ValueLayout.JAVA_BYTE, off + 8, (byte) 0xfd);
        s.set(ValueLayout.JAVA_BYTE, off + 23, (byte) 1);
        s.set(ValueLayout.JAVA_BYTE, off + 24, (byte) 0xfd);
        s.set(ValueLayout.JAVA_BYTE, off + 39, (byte) 2);
    }

    /** Frees the off-heap memory. */
    @TearDown
    public void tearDown() {
        arena.close();
    }

    /** Port-256 body encode then decode, both in place; returns the rebuilt packet offset (== 512). */
    @Benchmark
    public long shimEncodeDecode() {
        final long body = ShimBody.encodeInPlace(slot, OFF, LEN);
        return ShimBody.decodeInPlace(slot, body, LEN - ShimBody.BODY_SHRINK, srcHi, srcLo, dstHi, dstLo);
    }

    /** Restores the SYN's MSS 1460 and checksum, then clamps it to 1143. */
    @Benchmark
    public int mssClamp() {
        syn.set(BE_SHORT, 62, (short) 1460);
        syn.set(BE_SHORT, 56, synChecksum);
        return TcpMssClamp.clamp(syn, 0, 80, 1143);
    }

    /** Limiter check (a fresh time each call, so it always allows) and a full 1280-byte Packet Too Big build. */
    @Benchmark
    public int packetTooBig() {
        now += 200_000_000L;
        if (!limiter.shouldSend(Ipv6Packet.srcHi(slot, OFF), Ipv6Packet.srcLo(slot, OFF), now)) {
            return -1;
        }
        return Icmpv6Errors.packetTooBigForTun(slot, OFF, LEN, 1203, icmp, 0);
    }
}
