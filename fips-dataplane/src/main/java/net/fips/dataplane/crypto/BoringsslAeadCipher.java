package net.fips.dataplane.crypto;

import java.lang.foreign.MemorySegment;

import net.fips.ffm.boringssl.AeadChaCha20Poly1305;

/**
 * BoringSSL's one-call {@code EVP_AEAD} ChaCha20-Poly1305 (Debian's {@code android-libboringssl}) through FFM: one
 * downcall per packet, no per-call parameter machinery, a keyed context per key (up to 8 per engine, least recently
 * used reused). Allocation-free per packet on native segments, like {@link LibcryptoAeadCipher}. One instance per
 * thread; it owns native memory until {@link #close()}.
 */
public final class BoringsslAeadCipher implements AeadCipher {
    private final AeadChaCha20Poly1305 engine;

    /**
     * Creates the engine.
     *
     * @throws IllegalStateException if BoringSSL is unavailable; {@link AeadCiphers#create()} checks first
     */
    public BoringsslAeadCipher() {
        engine = new AeadChaCha20Poly1305();
    }

    @Override
    public int seal(final MemorySegment key, final MemorySegment nonce, final MemorySegment aad, final long aadOff,
                    final int aadLen, final MemorySegment buf, final long off, final int len) {
        return engine.seal(key, nonce, aad, aadOff, aadLen, buf, off, len);
    }

    @Override
    public int open(final MemorySegment key, final MemorySegment nonce, final MemorySegment aad, final long aadOff,
                    final int aadLen, final MemorySegment buf, final long off, final int lenWithTag) {
        final int n = engine.open(key, nonce, aad, aadOff, aadLen, buf, off, lenWithTag);
        return n == AeadChaCha20Poly1305.AUTH_FAILED ? AUTH_FAILED : n;
    }

    @Override
    public String backend() {
        return AeadCiphers.BORINGSSL;
    }

    @Override
    public void close() {
        engine.close();
    }
}
