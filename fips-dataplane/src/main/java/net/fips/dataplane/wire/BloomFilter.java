package net.fips.dataplane.wire;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/**
 * The FIPS reachability bloom filter, bit-exact with the reference. Default m = 8192 bits (1024 bytes), k = 5.
 * For a 16-byte node_addr {@code a}: {@code d = SHA-256(a)}, {@code h1 = u64 LE d[0..8]}, {@code h2 = u64 LE d[8..16]},
 * and probe {@code i} (0 ≤ i &lt; k) sets bit {@code ((h1 + i·h2) mod 2^64) mod m}, stored LSB-first: bit b lives in
 * byte b/8 under mask {@code 1 << (b % 8)}. Receivers test a peer's filter with the hash_count that peer announced.
 * Mutable and not thread-safe.
 */
public final class BloomFilter {
    /** Default size in bits. */
    public static final int DEFAULT_BITS = 8192;
    /** Default number of probes. */
    public static final int DEFAULT_HASH_COUNT = 5;

    private final byte[] bits;
    private final int hashCount;

    private BloomFilter(final byte[] bits, final int hashCount) {
        this.bits = bits;
        this.hashCount = hashCount;
    }

    /** An empty filter with the default m = 8192, k = 5. */
    public static BloomFilter create() {
        return withParams(DEFAULT_BITS, DEFAULT_HASH_COUNT);
    }

    /** An empty filter of {@code numBits} (a positive multiple of 8) and {@code hashCount} probes (1..255). */
    public static BloomFilter withParams(final int numBits, final int hashCount) {
        if (numBits <= 0 || numBits % 8 != 0) {
            throw new IllegalArgumentException("filter size must be a positive multiple of 8 bits");
        }
        checkHashCount(hashCount);
        return new BloomFilter(new byte[numBits / 8], hashCount);
    }

    /** A filter over a copy of {@code bytes} (non-empty) with {@code hashCount} probes (1..255). */
    public static BloomFilter fromBytes(final byte[] bytes, final int hashCount) {
        if (bytes.length == 0) {
            throw new IllegalArgumentException("filter must not be empty");
        }
        checkHashCount(hashCount);
        return new BloomFilter(bytes.clone(), hashCount);
    }

    private static void checkHashCount(final int hashCount) {
        if (hashCount < 1 || hashCount > 255) {
            throw new IllegalArgumentException("hash_count must be 1..255");
        }
    }

    /** {@code h1} and {@code h2}: the two little-endian u64 words of SHA-256(data)[0..16]. */
    public static long[] baseHashes(final byte[] data) {
        final byte[] d;
        try {
            d = MessageDigest.getInstance("SHA-256").digest(data);
        } catch (final NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is mandatory in every JDK", e);
        }
        long h1 = 0;
        long h2 = 0;
        for (int i = 7; i >= 0; i--) {
            h1 = (h1 << 8) | (d[i] & 0xFF);
            h2 = (h2 << 8) | (d[8 + i] & 0xFF);
        }
        return new long[] {h1, h2};
    }

    /** The bit indices probed for {@code addr} in a filter of {@code numBits} with {@code hashCount} probes. */
    public static int[] bitIndices(final NodeAddr addr, final int numBits, final int hashCount) {
        final long[] h = baseHashes(addr.toBytes());
        final int[] out = new int[hashCount];
        for (int i = 0; i < hashCount; i++) {
            // Wrapping u64 arithmetic, then an unsigned remainder, as the reference computes it.
            out[i] = (int) Long.remainderUnsigned(h[0] + i * h[1], numBits);
        }
        return out;
    }

    /** Adds {@code addr}. */
    public void insert(final NodeAddr addr) {
        for (final int b : bitIndices(addr, numBits(), hashCount)) {
            bits[b >>> 3] |= (byte) (1 << (b & 7));
        }
    }

    /** True when every probe bit of {@code addr} is set (possibly a false positive). */
    public boolean contains(final NodeAddr addr) {
        for (final int b : bitIndices(addr, numBits(), hashCount)) {
            if ((bits[b >>> 3] & (1 << (b & 7))) == 0) {
                return false;
            }
        }
        return true;
    }

    /** ORs {@code other} into this filter; sizes must match. */
    public void merge(final BloomFilter other) {
        if (other.bits.length != bits.length) {
            throw new IllegalArgumentException("filter sizes differ");
        }
        for (int i = 0; i < bits.length; i++) {
            bits[i] |= other.bits[i];
        }
    }

    /** Number of set bits. */
    public int countOnes() {
        int n = 0;
        for (final byte b : bits) {
            n += Integer.bitCount(b & 0xFF);
        }
        return n;
    }

    /** Fraction of set bits. */
    public double fillRatio() {
        return (double) countOnes() / numBits();
    }

    /**
     * Estimated number of entries {@code -(m/k)·ln(1 - fill)}, or NaN when saturated or when the false-positive rate
     * {@code fill^k} exceeds {@code maxFpr} (the reference's refusal rule).
     */
    public double estimatedCount(final double maxFpr) {
        final int ones = countOnes();
        final double m = numBits();
        if (ones >= m) {
            return Double.NaN;
        }
        final double fill = ones / m;
        if (Math.pow(fill, hashCount) > maxFpr) {
            return Double.NaN;
        }
        return -(m / hashCount) * Math.log(1.0 - fill);
    }

    /** True when no bit is set. */
    public boolean isEmpty() {
        return countOnes() == 0;
    }

    /** Size in bits. */
    public int numBits() {
        return bits.length * 8;
    }

    /** Size in bytes. */
    public int numBytes() {
        return bits.length;
    }

    /** Number of probes. */
    public int hashCount() {
        return hashCount;
    }

    /** A copy of the filter bytes. */
    public byte[] toBytes() {
        return bits.clone();
    }

    /** A deep copy. */
    public BloomFilter copy() {
        return new BloomFilter(bits.clone(), hashCount);
    }

    @Override
    public boolean equals(final Object o) {
        return o instanceof BloomFilter f && f.hashCount == hashCount && Arrays.equals(f.bits, bits);
    }

    @Override
    public int hashCode() {
        return 31 * hashCount + Arrays.hashCode(bits);
    }

    @Override
    public String toString() {
        return "BloomFilter[bits=" + numBits() + ", k=" + hashCount + ", ones=" + countOnes() + "]";
    }
}
