package net.fips.dataplane.crypto;

import java.lang.foreign.MemorySegment;
import java.security.GeneralSecurityException;
import java.util.Arrays;

import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The last fallback backend: the JDK's {@code ChaCha20-Poly1305} {@link Cipher}. Correct everywhere, but it leaves
 * about 2 KB of garbage per packet (key spec, IV spec, internal buffers), so it is chosen only where neither
 * BoringSSL nor libcrypto can be loaded. One instance per thread.
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
        if (len < 0) {
            throw new IllegalArgumentException("negative length " + len);
        }
        // Every region is checked before the cipher is initialised: an init consumes the key and nonce (the JDK
        // then refuses to encrypt under the same pair again), so a rejected call must not get that far.
        final MemorySegment data = buf.asSlice(off, (long) len + TAG_BYTES);
        init(Cipher.ENCRYPT_MODE, key.asSlice(0, KEY_BYTES), nonce.asSlice(0, NONCE_BYTES), aadRegion(aad, aadOff,
                aadLen));
        try {
            return cipher.doFinal(data.asSlice(0, len).asByteBuffer(), data.asByteBuffer());
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
        final MemorySegment data = buf.asSlice(off, lenWithTag);
        init(Cipher.DECRYPT_MODE, key.asSlice(0, KEY_BYTES), nonce.asSlice(0, NONCE_BYTES), aadRegion(aad, aadOff,
                aadLen));
        try {
            return cipher.doFinal(data.asByteBuffer(), data.asSlice(0, lenWithTag - TAG_BYTES).asByteBuffer());
        } catch (final AEADBadTagException e) {
            return AUTH_FAILED;
        } catch (final GeneralSecurityException e) {
            throw new IllegalStateException("ChaCha20-Poly1305 open failed", e);
        }
    }

    /** @return the bounds-checked AAD slice, or {@code null} when there is none */
    private static MemorySegment aadRegion(final MemorySegment aad, final long aadOff, final int aadLen) {
        if (aadLen < 0) {
            throw new IllegalArgumentException("negative AAD length " + aadLen);
        }
        return aadLen > 0 ? aad.asSlice(aadOff, aadLen) : null;
    }

    /** Initialises the cipher; the regions are already bounds-checked slices. */
    private void init(final int mode, final MemorySegment key, final MemorySegment nonce, final MemorySegment aad) {
        MemorySegment.ofArray(keyBytes).copyFrom(key);
        MemorySegment.ofArray(nonceBytes).copyFrom(nonce);
        try {
            // The JDK refuses an encryption init that repeats the previous key and nonce (a nonce-reuse guard);
            // FIPS never repeats a nonce under one key, so that refusal would be a bug upstream of us.
            cipher.init(mode, new SecretKeySpec(keyBytes, "ChaCha20"), new IvParameterSpec(nonceBytes));
            if (aad != null) {
                cipher.updateAAD(aad.asByteBuffer());
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
        Arrays.fill(keyBytes, (byte) 0);
    }
}
