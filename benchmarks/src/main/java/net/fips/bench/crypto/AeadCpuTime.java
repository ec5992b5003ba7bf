package net.fips.bench.crypto;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.util.Arrays;

import com.sun.management.ThreadMXBean;

import net.fips.dataplane.crypto.AeadCipher;
import net.fips.dataplane.crypto.AeadCiphers;

/**
 * The C baseline's loop ({@code benchmarks/c/aead_baseline.c}) in Java: per backend and size, one warm-up round,
 * then three timed rounds of seal and of open, reporting wall and <em>thread CPU</em> ns/op and bytes allocated per
 * op. CPU time is what makes the libcrypto/C ratio readable on a shared, loaded VM, where wall time mostly measures
 * the other tenants; JMH (AeadSealBenchmark) remains the reference for wall time on a quiet machine.
 *
 * <pre>java --enable-native-access=ALL-UNNAMED -cp benchmarks/target/benchmarks.jar \
 *     net.fips.bench.crypto.AeadCpuTime [seconds-per-round] [backend,...] [size,...]</pre>
 */
public final class AeadCpuTime {
    private static final int AAD_LEN = 16;
    private static final int ROUNDS = 3;
    private static final String SIZES = "64,512,1400,8192";

    private final ThreadMXBean threads =
            (ThreadMXBean) ManagementFactory.getThreadMXBean();
    private final AeadCipher cipher;
    private final int len;
    private final MemorySegment key;
    private final MemorySegment nonce;
    private final MemorySegment openNonce;
    private final MemorySegment aad;
    private final MemorySegment buf;
    private final MemorySegment sealed;
    private long counter;
    private long sink;

    private AeadCpuTime(final AeadCipher cipher, final int len, final Arena arena) {
        this.cipher = cipher;
        this.len = len;
        key = arena.allocate(AeadCipher.KEY_BYTES);
        aad = arena.allocate(AAD_LEN);
        nonce = arena.allocate(AeadCipher.NONCE_BYTES);
        openNonce = arena.allocate(AeadCipher.NONCE_BYTES);
        buf = arena.allocate(len + AeadCipher.TAG_BYTES, 64);
        sealed = arena.allocate(len + AeadCipher.TAG_BYTES, 64);
        for (int i = 0; i < AeadCipher.KEY_BYTES; i++) {
            key.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + 1));
        }
        for (int i = 0; i < AAD_LEN; i++) {
            aad.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 13 + 5));
        }
        for (int i = 0; i < len; i++) {
            sealed.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + len));
        }
        AeadCipher.fipsNonce(openNonce, -1L);
        cipher.seal(key, openNonce, aad, 0, AAD_LEN, sealed, 0, len);
    }

    /** @param args optional seconds per round (default 1), comma-separated backends and comma-separated sizes */
    public static void main(final String[] args) {
        final double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 1.0;
        final String[] backends = (args.length > 1 ? args[1] : "libcrypto,boringssl,jdk,bouncycastle").split(",");
        final int[] sizes = Arrays.stream((args.length > 2 ? args[2] : SIZES).split(",")).mapToInt(Integer::parseInt)
                .toArray();
        System.out.printf("# %d measured rounds of %.1f s after one warm-up round; ns/op by wall and thread CPU "
                + "time, B/op by thread allocation counter%n", ROUNDS, seconds);
        System.out.printf("%-13s %-6s %10s %10s %8s %10s %10s %8s%n", "backend", "size", "seal wall", "seal cpu",
                "seal B", "open wall", "open cpu", "open B");
        for (final String backend : backends) {
            for (final int size : sizes) {
                try (Arena arena = Arena.ofConfined();
                     AeadCipher c = "bouncycastle".equals(backend) ? new BcAeadCipher()
                             : AeadCiphers.create(backend)) {
                    final AeadCpuTime run = new AeadCpuTime(c, size, arena);
                    final double[] seal = run.measure(true, seconds);
                    final double[] open = run.measure(false, seconds);
                    System.out.printf("%-13s %-6d %10.1f %10.1f %8.1f %10.1f %10.1f %8.1f%n", backend, size,
                            seal[0], seal[1], seal[2], open[0], open[1], open[2]);
                }
            }
        }
    }

    /** @return {wall ns/op, cpu ns/op, bytes/op} averaged over the measured rounds */
    private double[] measure(final boolean seal, final double seconds) {
        round(seal, seconds);
        final double[] r = new double[3];
        for (int k = 0; k < ROUNDS; k++) {
            final double[] one = round(seal, seconds);
            for (int i = 0; i < 3; i++) {
                r[i] += one[i] / ROUNDS;
            }
        }
        return r;
    }

    private double[] round(final boolean seal, final double seconds) {
        final long tid = Thread.currentThread().threadId();
        final long cpu0 = threads.getCurrentThreadCpuTime();
        final long alloc0 = threads.getThreadAllocatedBytes(tid);
        final long start = System.nanoTime();
        final long end = start + (long) (seconds * 1e9);
        long ops = 0;
        long now;
        do {
            for (int i = 0; i < 1000; i++) {
                sink += seal ? seal() : open();
            }
            ops += 1000;
        } while ((now = System.nanoTime()) < end);
        final long alloc = threads.getThreadAllocatedBytes(tid) - alloc0;
        final long cpu = threads.getCurrentThreadCpuTime() - cpu0;
        if (!seal && sink < 0) {
            throw new IllegalStateException("open failed");
        }
        return new double[] {(double) (now - start) / ops, (double) cpu / ops, (double) alloc / ops};
    }

    private int seal() {
        AeadCipher.fipsNonce(nonce, ++counter);
        return cipher.seal(key, nonce, aad, 0, AAD_LEN, buf, 0, len);
    }

    private int open() {
        MemorySegment.copy(sealed, 0, buf, 0, len + AeadCipher.TAG_BYTES);
        final int n = cipher.open(key, openNonce, aad, 0, AAD_LEN, buf, 0, len + AeadCipher.TAG_BYTES);
        if (n != len) {
            throw new IllegalStateException(cipher.backend() + " failed to open");
        }
        return n;
    }
}
