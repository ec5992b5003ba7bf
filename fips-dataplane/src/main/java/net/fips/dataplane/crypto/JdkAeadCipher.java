package net.fips.dataplane.crypto;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;

import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The fallback backend: the JDK's {@code ChaCha20-Poly1305} {@link Cipher}. Correct everywhere, but it leaves
 * about 2 KB of garbage per packet (key spec, IV spec, internal buffers), so it is chosen only where libcrypto
 * cannot be loaded. One instance per thread.
 */
public final class JdkAeadCipher implements AeadCipher {
    private final Cipher cipher;
    private final byte[] keyBytes = new byte[KEY_BYTES];
    private final byte[] nonceBytes = new byte[NONCE_BYTES];

    /** Creates the engine. */
    public JdkAeadCipher() {
        try {
            cipher = Cipher.getInstance("ChaCha20-Poly1305");
        } catch (final GeneralSecurityException e) {
            throw new IllegalStateException("this JDK has no ChaCha20-Poly1305", e);
        }
    }

    @Override
    public int seal(final MemorySegment key, final MemorySegment nonce, final MemorySegment aad, final long aadOff,
                    final int aadLen, final MemorySegment buf, final long off, final int len) {
        init(Cipher.ENCRYPT_MODE, key, nonce, aad, aadOff, aadLen);
        try {
            final ByteBuffer in = buf.asSlice(off, len).asByteBuffer();
            final ByteBuffer out = buf.asSlice(off, (long) len + TAG_BYTES).asByteBuffer();
            return cipher.doFinal(in, out);
        } catch (final GeneralSecurityException e) {
            throw new IllegalStateException("ChaCha20-Poly1305 seal failed", e);
        }
    }

    @Override
    public int open(final MemorySegment key, final MemorySegment nonce, final MemorySegment aad, final long aadOff,
                    final int aadLen, final MemorySegment buf, final long off, final int lenWithTag) {
        if (lenWithTag < TAG_BYTES) {
            return AUTH_FAILED;
        }
        init(Cipher.DECRYPT_MODE, key, nonce, aad, aadOff, aadLen);
        try {
            final ByteBuffer in = buf.asSlice(off, lenWithTag).asByteBuffer();
            final ByteBuffer out = buf.asSlice(off, lenWithTag - TAG_BYTES).asByteBuffer();
            return cipher.doFinal(in, out);
        } catch (final AEADBadTagException e) {
            return AUTH_FAILED;
        } catch (final GeneralSecurityException e) {
            throw new IllegalStateException("ChaCha20-Poly1305 open failed", e);
        }
    }

    private void init(final int mode, final MemorySegment key, final MemorySegment nonce, final MemorySegment aad,
                      final long aadOff, final int aadLen) {
        MemorySegment.ofArray(keyBytes).copyFrom(key.asSlice(0, KEY_BYTES));
        MemorySegment.ofArray(nonceBytes).copyFrom(nonce.asSlice(0, NONCE_BYTES));
        try {
            // The JDK refuses an encryption init that repeats the previous key and nonce (a nonce-reuse guard);
            // FIPS never repeats a nonce under one key, so that refusal would be a bug upstream of us.
            cipher.init(mode, new SecretKeySpec(keyBytes, "ChaCha20"), new IvParameterSpec(nonceBytes));
            if (aadLen > 0) {
                cipher.updateAAD(aad.asSlice(aadOff, aadLen).asByteBuffer());
            }
        } catch (final GeneralSecurityException e) {
            throw new IllegalStateException("ChaCha20-Poly1305 init failed", e);
        }
    }

    @Override
    public String backend() {
        return "jdk";
    }

    @Override
    public void close() {
        java.util.Arrays.fill(keyBytes, (byte) 0);
    }
}
