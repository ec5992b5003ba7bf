package net.fips.control.noise;

import java.security.SecureRandom;

import net.fips.control.crypto.Secp256k1;

/**
 * Where a handshake gets its ephemeral secret key. Production uses {@link #secureRandom()}; known-answer tests
 * inject {@link #fixed} keys, the same way the reference vectors were made by feeding chosen bytes to its RNG.
 * A handshake asks for exactly one ephemeral, when it writes its first message that carries one.
 */
@FunctionalInterface
public interface EphemeralSource {
    /**
     * @return a 32-byte big-endian secret scalar; the caller owns (and wipes) the array. A value that is not a valid
     *     secp256k1 secret makes the handshake write fail with {@link NoiseException.Reason#INVALID_SECRET_KEY}.
     */
    byte[] nextSecret();

    /** @return a source drawing from a new {@link SecureRandom} */
    static EphemeralSource secureRandom() {
        return secureRandom(new SecureRandom());
    }

    /**
     * @param rng the generator to draw from
     * @return a source of uniformly random valid secrets (32 random bytes, redrawn in the ~2^-128 case that they
     *     are not below the group order or are zero)
     */
    static EphemeralSource secureRandom(final SecureRandom rng) {
        return () -> Secp256k1.randomSecret(rng);
    }

    /**
     * @param secret the 32-byte secret to hand out, copied (each call returns a fresh copy)
     * @return a source that always returns {@code secret}, for known-answer tests only
     */
    static EphemeralSource fixed(final byte[] secret) {
        final byte[] copy = secret.clone();
        return copy::clone;
    }
}
