package net.fips.control.crypto;

import java.util.Arrays;

import net.fips.ffm.secp256k1.Secp256k1Lib;

/** {@link Secp256k1Backend} on libsecp256k1 ({@link Secp256k1Lib}); only constructed once the library is available. */
final class LibSecp256k1Backend implements Secp256k1Backend {
    /** The name in logs and benchmark parameters. */
    static final String NAME = "libsecp256k1";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public byte[] compressed(final byte[] sk) {
        return Secp256k1Lib.publicKey(sk);
    }

    @Override
    public boolean isValidCompressed(final byte[] p33) {
        return Secp256k1Lib.isValidPublicKey(p33);
    }

    @Override
    public boolean isValidXOnly(final byte[] x) {
        return Secp256k1Lib.isValidXOnly(x);
    }

    @Override
    public byte[] ecdh(final byte[] sk, final byte[] peer) {
        final byte[] x = Secp256k1Lib.sharedX(sk, peer);
        try {
            return Secp256k1.sha256(x);
        } finally {
            Secp256k1.wipe(x);
        }
    }

    @Override
    public byte[] sign(final byte[] sk, final byte[] msg, final byte[] aux) {
        final byte[] sig = Secp256k1Lib.signSchnorr(sk, msg, aux);
        // BIP-340 recommends verifying before release, as the BouncyCastle backend does.
        final byte[] pub = Secp256k1Lib.publicKey(sk);
        if (!Secp256k1Lib.verifySchnorr(Arrays.copyOfRange(pub, 1, 33), msg, sig)) {
            throw new IllegalStateException("BIP-340 self-verification failed");
        }
        return sig;
    }

    @Override
    public boolean verify(final byte[] xOnlyPub, final byte[] msg, final byte[] sig) {
        return Secp256k1Lib.verifySchnorr(xOnlyPub, msg, sig);
    }

    @Override
    public String toString() {
        return NAME;
    }
}
