package net.fips.bench.dataplane;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import net.fips.dataplane.crypto.AeadCipher;

/**
 * A stand-in {@link AeadCipher} that leaves the bytes as they are and writes a zero tag: the {@code raw} mode of
 * the link benchmarks, so the same engine (pool, rings, batching, framing, replay window) runs without link crypto.
 * Never for real traffic: it authenticates nothing.
 */
final class NoAeadCipher implements AeadCipher {
    @Override
    public int seal(final MemorySegment key, final MemorySegment nonce, final MemorySegment aad, final long aadOff,
                    final int aadLen, final MemorySegment buf, final long off, final int len) {
        buf.set(ValueLayout.JAVA_LONG_UNALIGNED, off + len, 0L);
        buf.set(ValueLayout.JAVA_LONG_UNALIGNED, off + len + Long.BYTES, 0L);
        return len + TAG_BYTES;
    }

    @Override
    public int open(final MemorySegment key, final MemorySegment nonce, final MemorySegment aad, final long aadOff,
                    final int aadLen, final MemorySegment buf, final long off, final int lenWithTag) {
        return lenWithTag < TAG_BYTES ? AUTH_FAILED : lenWithTag - TAG_BYTES;
    }

    @Override
    public String backend() {
        return "none";
    }

    @Override
    public void close() {
    }
}
