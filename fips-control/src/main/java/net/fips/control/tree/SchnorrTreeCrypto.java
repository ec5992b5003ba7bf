package net.fips.control.tree;

import java.util.Objects;
import java.util.Random;

import net.fips.control.crypto.Schnorr;
import net.fips.control.identity.NodeIdentity;

/** The production {@link TreeSigner} and {@link SignatureVerifier}: BIP-340 Schnorr over secp256k1. */
public final class SchnorrTreeCrypto {
    private SchnorrTreeCrypto() {
    }

    /**
     * A signer for {@code identity} whose aux randomness comes from {@code random} (as the link layer signs).
     *
     * @param identity this node's identity
     * @param random   the injected randomness
     * @return the signer
     */
    public static TreeSigner signer(final NodeIdentity identity, final Random random) {
        Objects.requireNonNull(identity, "identity");
        Objects.requireNonNull(random, "random");
        return bytes -> {
            final byte[] aux = new byte[Schnorr.AUX_LENGTH];
            random.nextBytes(aux);
            return identity.sign(bytes, aux);
        };
    }

    /** @return a verifier over {@link Schnorr#verifyData}; malformed keys or signatures verify false */
    public static SignatureVerifier verifier() {
        return (key, bytes, sig) -> {
            if (key == null || key.length != 32 || sig == null || sig.length != Schnorr.SIGNATURE_LENGTH) {
                return false;
            }
            try {
                return Schnorr.verifyData(key, bytes, sig);
            } catch (final RuntimeException e) {
                return false;
            }
        };
    }
}
