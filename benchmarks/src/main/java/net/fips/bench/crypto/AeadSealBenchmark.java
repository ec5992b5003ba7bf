package net.fips.bench.crypto;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.lang.foreign.ValueLayout;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import net.fips.dataplane.crypto.AeadCipher;
import net.fips.dataplane.crypto.AeadCiphers;

/**
 * Per-packet ChaCha20-Poly1305 cost of each {@link AeadCipher} backend, in place on off-heap memory with a 16-byte
 * AAD (the FMP header) and the FIPS nonce layout, as the data plane uses it.
 *
 * <p>{@code seal} takes a fresh nonce per operation (the JDK and BouncyCastle refuse to encrypt twice under one key
 * and nonce). {@code open} first copies a sealed packet into the work buffer, because opening is destructive;
 * that copy (a memcpy of size+16 bytes) is part of every backend's {@code open} figure and of the C baseline's.
 * Run via {@code benchmarks/run-aead.sh}; results in docs/benchmarks.md.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xmx512m"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class AeadSealBenchmark {
    private static final int AAD_LEN = 16;

    /** Which backend; {@code bouncycastle} is a baseline only. */
    @Param({"libcrypto", "boringssl", "jdk", "bouncycastle"})
    public String backend;

    /** Plaintext bytes per packet. */
    @Param({"64", "512", "1400", "8192"})
    public int size;

    private Arena arena;
    private AeadCipher cipher;
    private MemorySegment key;
    private MemorySegment sealNonce;
    private MemorySegment openNonce;
    private MemorySegment aad;
    private MemorySegment buf;
    private MemorySegment sealed;
    private long counter;

    /** Creates the engine, random key/AAD/payload, and one sealed packet for {@link #open()}. */
    @Setup(Level.Trial)
    public void setUp() {
        arena = Arena.ofShared();
        cipher = "bouncycastle".equals(backend) ? new BcAeadCipher() : AeadCiphers.create(backend);
        final SplittableRandom rnd = new SplittableRandom(7);
        key = random(rnd, AeadCipher.KEY_BYTES);
        aad = random(rnd, AAD_LEN);
        sealNonce = arena.allocate(AeadCipher.NONCE_BYTES);
        openNonce = arena.allocate(AeadCipher.NONCE_BYTES);
        AeadCipher.fipsNonce(openNonce, Long.MIN_VALUE);
        buf = arena.allocate(size + AeadCipher.TAG_BYTES, 64);
        sealed = arena.allocate(size + AeadCipher.TAG_BYTES, 64);
        sealed.copyFrom(random(rnd, size + AeadCipher.TAG_BYTES));
        cipher.seal(key, openNonce, aad, 0, AAD_LEN, sealed, 0, size);
        buf.copyFrom(sealed);
        if (cipher.open(key, openNonce, aad, 0, AAD_LEN, buf, 0, size + AeadCipher.TAG_BYTES) != size) {
            throw new IllegalStateException(backend + " cannot open its own packet");
        }
    }

    /** Releases the engine and memory. */
    @TearDown(Level.Trial)
    public void tearDown() {
        cipher.close();
        arena.close();
    }

    /** @return sealed length: nonce from a counter, AAD, encrypt in place, tag appended */
    @Benchmark
    public int seal() {
        AeadCipher.fipsNonce(sealNonce, ++counter);
        return cipher.seal(key, sealNonce, aad, 0, AAD_LEN, buf, 0, size);
    }

    /** @return plaintext length: copy the sealed packet in, verify the tag and decrypt in place */
    @Benchmark
    public int open() {
        MemorySegment.copy(sealed, 0, buf, 0, size + AeadCipher.TAG_BYTES);
        return cipher.open(key, openNonce, aad, 0, AAD_LEN, buf, 0, size + AeadCipher.TAG_BYTES);
    }

    private MemorySegment random(final SplittableRandom rnd, final int n) {
        final MemorySegment s = arena.allocate(n);
        for (int i = 0; i < n; i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) rnd.nextInt());
        }
        return s;
    }
}
