package net.fips.dataplane.crypto;

import java.lang.foreign.MemorySegment;

import net.fips.ffm.openssl.ChaCha20Poly1305;

/**
 * The first fallback backend (after {@link BoringsslAeadCipher}, ADR 0054): OpenSSL libcrypto's ChaCha20-Poly1305
 * called through FFM. Within about 10% of the same EVP steps written in C (docs/benchmarks.md), and allocation-free
 * per packet when the key, nonce, AAD and buffer are native segments, as the data plane's are: those are passed to
 * libcrypto as raw addresses after explicit checks, so nothing depends on the JIT eliminating temporary slices. One
 * instance per thread; it owns a native {@code EVP_CIPHER_CTX} until {@link #close()}.
 */
public final class LibcryptoAeadCipher implements AeadCipher {
    private final ChaCha20Poly1305 engine;

    /**
     * Creates the engine.
     *
     * @throws IllegalStateException if libcrypto is unavailable; {@link AeadCiphers#create()} checks first
     */
    public LibcryptoAeadCipher() {
        engine = new ChaCha20Poly1305();
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
        return n == ChaCha20Poly1305.AUTH_FAILED ? AUTH_FAILED : n;
    }

    @Override
    public String backend() {
        return AeadCiphers.LIBCRYPTO;
    }

    @Override
    public void close() {
        engine.close();
    }
}
