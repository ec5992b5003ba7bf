package net.fips.control.crypto;

import java.math.BigInteger;
import java.util.Arrays;

import org.bouncycastle.math.ec.ECAlgorithms;
import org.bouncycastle.math.ec.ECPoint;
import org.bouncycastle.math.ec.FixedPointCombMultiplier;

/** {@link Secp256k1Backend} on BouncyCastle's curve code: always available, the fallback. */
final class BouncyCastleSecp256k1Backend implements Secp256k1Backend {
    /** The name in logs and benchmark parameters. */
    static final String NAME = "bouncycastle";

    // Comb multiplication for secret scalars: fixed sequence of additions, unlike the curve's default wNAF.
    private static final FixedPointCombMultiplier COMB = new FixedPointCombMultiplier();

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public byte[] compressed(final byte[] sk) {
        return Secp256k1.publicPoint(sk).getEncoded(true);
    }

    @Override
    public boolean isValidCompressed(final byte[] p33) {
        return Secp256k1.decodeCompressed(p33) != null;
    }

    @Override
    public boolean isValidXOnly(final byte[] x) {
        return Secp256k1.liftX(x) != null;
    }

    @Override
    public byte[] ecdh(final byte[] sk, final byte[] peer) {
        final ECPoint p = Secp256k1.decodeCompressed(peer);
        if (p == null) {
            throw new IllegalArgumentException("public key is not a 33-byte compressed secp256k1 point");
        }
        return Secp256k1.ecdh(sk, p);
    }

    @Override
    public byte[] sign(final byte[] sk, final byte[] msg, final byte[] aux) {
        final BigInteger d0 = Secp256k1.scalar(sk);
        final ECPoint p = COMB.multiply(Secp256k1.G, d0).normalize();
        final BigInteger d = Secp256k1.hasEvenY(p) ? d0 : Secp256k1.N.subtract(d0);
        final byte[] px = Secp256k1.xOnly(p);

        final byte[] dBytes = Secp256k1.to32(d);
        final byte[] t = Schnorr.taggedHash(Schnorr.TAG_AUX, aux);
        for (int i = 0; i < 32; i++) {
            t[i] ^= dBytes[i];
        }
        final byte[] rand = Schnorr.taggedHash(Schnorr.TAG_NONCE, t, px, msg);
        Secp256k1.wipe(t);
        Secp256k1.wipe(dBytes);
        final BigInteger k0 = new BigInteger(1, rand).mod(Secp256k1.N);
        Secp256k1.wipe(rand);
        if (k0.signum() == 0) {
            // Probability ~2^-256; BIP-340 says to fail rather than retry with other data.
            throw new IllegalStateException("BIP-340 nonce is zero");
        }
        final ECPoint r = COMB.multiply(Secp256k1.G, k0).normalize();
        final BigInteger k = Secp256k1.hasEvenY(r) ? k0 : Secp256k1.N.subtract(k0);
        final byte[] rx = Secp256k1.xOnly(r);
        final BigInteger e = challenge(rx, px, msg);
        final BigInteger s = k.add(e.multiply(d)).mod(Secp256k1.N);

        final byte[] sig = new byte[Schnorr.SIGNATURE_LENGTH];
        System.arraycopy(rx, 0, sig, 0, 32);
        System.arraycopy(Secp256k1.to32(s), 0, sig, 32, 32);
        // BIP-340 recommends verifying before release: it catches faults (and bugs) that would leak the key.
        if (!verify(px, msg, sig)) {
            throw new IllegalStateException("BIP-340 self-verification failed");
        }
        return sig;
    }

    @Override
    public boolean verify(final byte[] xOnlyPub, final byte[] msg, final byte[] sig) {
        if (xOnlyPub == null || msg == null || sig == null || sig.length != Schnorr.SIGNATURE_LENGTH) {
            return false;
        }
        final ECPoint p = Secp256k1.liftX(xOnlyPub);
        if (p == null) {
            return false;
        }
        final byte[] rx = Arrays.copyOfRange(sig, 0, 32);
        final BigInteger r = new BigInteger(1, rx);
        final BigInteger s = new BigInteger(1, Arrays.copyOfRange(sig, 32, 64));
        if (r.compareTo(Secp256k1.P) >= 0 || s.compareTo(Secp256k1.N) >= 0) {
            return false;
        }
        final BigInteger e = challenge(rx, xOnlyPub, msg);
        // R = s*G - e*P, computed as s*G + (n-e)*P in one interleaved pass (all inputs are public here).
        final ECPoint bigR = ECAlgorithms.sumOfTwoMultiplies(Secp256k1.G, s, p,
                Secp256k1.N.subtract(e).mod(Secp256k1.N)).normalize();
        if (bigR.isInfinity() || !Secp256k1.hasEvenY(bigR)) {
            return false;
        }
        return bigR.getAffineXCoord().toBigInteger().equals(r);
    }

    private static BigInteger challenge(final byte[] rx, final byte[] px, final byte[] msg) {
        return new BigInteger(1, Schnorr.taggedHash(Schnorr.TAG_CHALLENGE, rx, px, msg)).mod(Secp256k1.N);
    }

    @Override
    public String toString() {
        return NAME;
    }
}
