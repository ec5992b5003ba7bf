package net.fips.bench.crypto;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

import org.bouncycastle.crypto.InvalidCipherTextException;
import org.bouncycastle.crypto.modes.ChaCha20Poly1305;
import org.bouncycastle.crypto.params.KeyParameter;
import org.bouncycastle.crypto.params.ParametersWithIV;

import net.fips.dataplane.crypto.AeadCipher;

/**
 * BouncyCastle's pure-Java ChaCha20-Poly1305 behind {@link AeadCipher}, for benchmarks only: a baseline for the two
 * real backends. It copies each packet between the segment and heap arrays, as any byte[]-based AEAD must.
 */
final class BcAeadCipher implements AeadCipher {
    private static final int MAX = 65536;

    private final ChaCha20Poly1305 aead = new ChaCha20Poly1305();
    private final byte[] key = new byte[KEY_BYTES];
    private final byte[] nonce = new byte[NONCE_BYTES];
    private final byte[] in = new byte[MAX + TAG_BYTES];
    private final byte[] out = new byte[MAX + TAG_BYTES];
    private final byte[] aad = new byte[MAX];

    @Override
    public int seal(final MemorySegment keySeg, final MemorySegment nonceSeg, final MemorySegment aadSeg,
                    final long aadOff, final int aadLen, final MemorySegment buf, final long off, final int len) {
        init(true, keySeg, nonceSeg, aadSeg, aadOff, aadLen);
        MemorySegment.copy(buf, ValueLayout.JAVA_BYTE, off, in, 0, len);
        try {
            final int n = aead.processBytes(in, 0, len, out, 0);
            final int total = n + aead.doFinal(out, n);
            MemorySegment.copy(out, 0, buf, ValueLayout.JAVA_BYTE, off, total);
            return total;
        } catch (final InvalidCipherTextException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public int open(final MemorySegment keySeg, final MemorySegment nonceSeg, final MemorySegment aadSeg,
                    final long aadOff, final int aadLen, final MemorySegment buf, final long off,
                    final int lenWithTag) {
        if (lenWithTag < TAG_BYTES) {
            return AUTH_FAILED;
        }
        init(false, keySeg, nonceSeg, aadSeg, aadOff, aadLen);
        MemorySegment.copy(buf, ValueLayout.JAVA_BYTE, off, in, 0, lenWithTag);
        try {
            final int n = aead.processBytes(in, 0, lenWithTag, out, 0);
            final int total = n + aead.doFinal(out, n);
            MemorySegment.copy(out, 0, buf, ValueLayout.JAVA_BYTE, off, total);
            return total;
        } catch (final InvalidCipherTextException e) {
            return AUTH_FAILED;
        }
    }

    private void init(final boolean encrypt, final MemorySegment keySeg, final MemorySegment nonceSeg,
                      final MemorySegment aadSeg, final long aadOff, final int aadLen) {
        MemorySegment.copy(keySeg, ValueLayout.JAVA_BYTE, 0, key, 0, KEY_BYTES);
        MemorySegment.copy(nonceSeg, ValueLayout.JAVA_BYTE, 0, nonce, 0, NONCE_BYTES);
        aead.init(encrypt, new ParametersWithIV(new KeyParameter(key), nonce));
        if (aadLen > 0) {
            MemorySegment.copy(aadSeg, ValueLayout.JAVA_BYTE, aadOff, aad, 0, aadLen);
            aead.processAADBytes(aad, 0, aadLen);
        }
    }

    @Override
    public String backend() {
        return "bouncycastle";
    }

    @Override
    public void close() {
        Arrays.fill(key, (byte) 0);
    }
}
