package net.fips.bench.dataplane;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.lang.foreign.ValueLayout;

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
import org.openjdk.jmh.infra.Blackhole;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.OptionsBuilder;

import net.fips.dataplane.wire.BloomFilter;
import net.fips.dataplane.wire.CoordEntry;
import net.fips.dataplane.wire.FmpEstablishedHeader;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.dataplane.wire.SessionDatagramHeader;
import net.fips.dataplane.wire.TreeAnnounce;
import net.fips.dataplane.wire.WireResult;

/**
 * Wire codec costs: the hot-path flyweights (FMP established header, SessionDatagram header: encode by writing in
 * place, decode by wrapping, both expected at 0 B/op) and the control-path records (TreeAnnounce at depth 3,
 * bloom insert and lookup).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class CodecBenchmark {
    private Arena arena;
    private MemorySegment frame;
    private final FmpEstablishedHeader fmp = new FmpEstablishedHeader();
    private final SessionDatagramHeader datagram = new SessionDatagramHeader();
    private long counter;
    private byte[] announceBytes;
    private TreeAnnounce announce;
    private BloomFilter bloom;
    private NodeAddr[] addrs;
    private int next;

    /** Builds one 1400-byte frame in off-heap memory, a depth-3 TreeAnnounce and a filter of 100 entries. */
    @Setup
    public void setup() {
        arena = Arena.ofConfined();
        frame = arena.allocate(1400 + 16);
        FmpEstablishedHeader.write(frame, 0, 0, 1400 - 32, 0x01020304, 0);
        frame.set(ValueLayout.JAVA_BYTE, 16, (byte) 0);

        final SplittableRandom rnd = new SplittableRandom(1);
        addrs = new NodeAddr[1024];
        for (int i = 0; i < addrs.length; i++) {
            final byte[] b = new byte[16];
            rnd.nextBytes(b);
            addrs[i] = NodeAddr.of(b);
        }
        final List<CoordEntry> ancestry = List.of(new CoordEntry(addrs[0], 7, 1_700_000_000L),
                new CoordEntry(addrs[1], 9, 1_700_000_100L), new CoordEntry(addrs[2], 11, 1_700_000_200L));
        announce = new TreeAnnounce(7, 1_700_000_000L, addrs[1], ancestry, new byte[64]);
        announceBytes = announce.encode();
        bloom = BloomFilter.create();
        for (int i = 0; i < 100; i++) {
            bloom.insert(addrs[i]);
        }
    }

    /** Frees the off-heap frame. */
    @TearDown
    public void tearDown() {
        arena.close();
    }

    /** Writes a 16-byte FMP header in place (the seal path's header step). */
    @Benchmark
    public void fmpHeaderWrite() {
        FmpEstablishedHeader.write(frame, 0, 0, 1400 - 32, 0x01020304, counter++);
    }

    /** Wraps and reads an FMP header (the receive path's parse step). */
    @Benchmark
    public long fmpHeaderDecode() {
        final WireResult<FmpEstablishedHeader> r = fmp.wrap(frame, 0, 1400 + 16);
        final FmpEstablishedHeader h = r.valueOrNull();
        return h == null ? -1 : h.counter() + h.receiverIdx();
    }

    /** Wraps a SessionDatagram header inside the opened frame and reads its TTL. */
    @Benchmark
    public int sessionDatagramDecode() {
        final SessionDatagramHeader h = datagram.wrap(frame, 16 + 5, 1400 - 32 - 5).valueOrNull();
        return h == null ? -1 : h.ttl();
    }

    /** Encodes a depth-3 TreeAnnounce (control path). */
    @Benchmark
    public byte[] treeAnnounceEncode() {
        return announce.encode();
    }

    /** Decodes a depth-3 TreeAnnounce (control path). */
    @Benchmark
    public Object treeAnnounceDecode() {
        return TreeAnnounce.decode(announceBytes, 0, announceBytes.length);
    }

    /** One bloom lookup (five bit tests after SHA-256 of the address). */
    @Benchmark
    public boolean bloomContains() {
        return bloom.contains(addrs[next++ & 1023]);
    }

    /** One bloom insert. */
    @Benchmark
    public void bloomInsert(final Blackhole bh) {
        final BloomFilter f = bloom;
        f.insert(addrs[next++ & 1023]);
        bh.consume(f);
    }

    /**
     * Runs just this benchmark.
     *
     * @param args ignored
     */
    public static void main(final String[] args) throws RunnerException {
        new Runner(new OptionsBuilder().include(CodecBenchmark.class.getSimpleName()).build()).run();
    }
}
