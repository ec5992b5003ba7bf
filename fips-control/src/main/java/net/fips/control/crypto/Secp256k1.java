package net.fips.control.crypto;

import java.math.BigInteger;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Random;

import org.bouncycastle.asn1.x9.X9ECParameters;
import org.bouncycastle.crypto.ec.CustomNamedCurves;
import org.bouncycastle.math.ec.ECCurve;
import org.bouncycastle.math.ec.ECPoint;

/**
 * secp256k1 arithmetic for the control plane (identity, BIP-340, Noise DH). Never used on the packet path. All
 * scalars and coordinates are 32-byte big-endian.
 *
 * <p>The byte-array operations ({@link #compressed}, {@link #xOnly(byte[])}, {@link #ecdh(byte[], byte[])},
 * {@link #isValidCompressed}, {@link #isValidXOnly}, {@link #compressedFromXOnly}) run on the
 * {@linkplain Secp256k1Backends#active() active backend}: libsecp256k1 when it loads, else BouncyCastle. The
 * {@link ECPoint} ones ({@link #publicPoint}, {@link #decodeCompressed}, {@link #liftX}, {@link #ecdh(byte[],
 * ECPoint)}) are BouncyCastle's and are what its backend is built from.
 */
public final class Secp256k1 {
    private static final X9ECParameters PARAMS = CustomNamedCurves.getByName("secp256k1");
    /** The curve. */
    public static final ECCurve CURVE = PARAMS.getCurve();
    /** The generator. */
    public static final ECPoint G = PARAMS.getG();
    /** The group order n. */
    public static final BigInteger N = PARAMS.getN();
    /** The field prime p. */
    public static final BigInteger P = CURVE.getField().getCharacteristic();

    private Secp256k1() {
    }

    /** @return true when {@code sk} is 32 bytes encoding a scalar k with 1 <= k < n */
    public static boolean isValidSecret(final byte[] sk) {
        if (sk == null || sk.length != 32) {
            return false;
        }
        final BigInteger k = new BigInteger(1, sk);
        return k.signum() > 0 && k.compareTo(N) < 0;
    }

    /**
     * Draws 32 bytes from {@code random} until they are a valid secret, so the draw is uniform over [1, n-1] (a
     * redraw happens with probability about 2^-128) and the same generator state always gives the same secret.
     *
     * @param random the source of the bytes (a SecureRandom for real keys)
     * @return a valid secret key
     */
    public static byte[] randomSecret(final Random random) {
        final byte[] sk = new byte[32];
        do {
            random.nextBytes(sk);
        } while (!isValidSecret(sk));
        return sk;
    }

    /** @return k as a scalar, or an exception naming the problem */
    public static BigInteger scalar(final byte[] sk) {
        if (!isValidSecret(sk)) {
            throw new IllegalArgumentException("secret key must be 32 bytes with 1 <= k < n");
        }
        return new BigInteger(1, sk);
    }

    /** @return k·G, normalized */
    public static ECPoint publicPoint(final byte[] sk) {
        return G.multiply(scalar(sk)).normalize();
    }

    /** @return the 32-byte x-only public key of {@code sk} */
    public static byte[] xOnly(final byte[] sk) {
        return Arrays.copyOfRange(compressed(sk), 1, 33);
    }

    /** @return the 32-byte big-endian X of a normalized point */
    public static byte[] xOnly(final ECPoint p) {
        return to32(p.normalize().getAffineXCoord().toBigInteger());
    }

    /** @return the 33-byte SEC1 compressed encoding (real parity) of {@code sk}'s public key */
    public static byte[] compressed(final byte[] sk) {
        scalar(sk);
        return Secp256k1Backends.active().compressed(sk);
    }

    /**
     * @param p33 candidate key
     * @return whether it is exactly 33 bytes, with prefix 02/03 and an X on the curve
     */
    public static boolean isValidCompressed(final byte[] p33) {
        return p33 != null && p33.length == 33 && (p33[0] == 0x02 || p33[0] == 0x03)
                && Secp256k1Backends.active().isValidCompressed(p33);
    }

    /**
     * @param x candidate BIP-340 x-only key
     * @return whether it is 32 bytes, below p, and the X of a curve point ({@code lift_x} succeeds)
     */
    public static boolean isValidXOnly(final byte[] x) {
        return x != null && x.length == 32 && Secp256k1Backends.active().isValidXOnly(x);
    }

    /**
     * Parses a 33-byte SEC1 compressed key.
     *
     * @return the point, or {@code null} when it is not exactly 33 bytes, has a prefix other than 02/03, or its X
     *     is not on the curve
     */
    public static ECPoint decodeCompressed(final byte[] p33) {
        if (p33 == null || p33.length != 33 || (p33[0] != 0x02 && p33[0] != 0x03)) {
            return null;
        }
        try {
            final ECPoint p = CURVE.decodePoint(p33);
            return p.isValid() ? p.normalize() : null;
        } catch (final IllegalArgumentException | ArithmeticException e) {
            return null;
        }
    }

    /**
     * Lifts an x-only key to the point with even Y (BIP-340 {@code lift_x}).
     *
     * @return the point, or {@code null} when {@code x} is not 32 bytes, not below p, or not on the curve
     */
    public static ECPoint liftX(final byte[] x) {
        if (x == null || x.length != 32 || new BigInteger(1, x).compareTo(P) >= 0) {
            return null;
        }
        final byte[] enc = new byte[33];
        enc[0] = 0x02;
        System.arraycopy(x, 0, enc, 1, 32);
        return decodeCompressed(enc);
    }

    /** @return the compressed encoding of the even-Y lift of {@code x}, or {@code null} if not on the curve */
    public static byte[] compressedFromXOnly(final byte[] x) {
        if (!isValidXOnly(x)) {
            return null;
        }
        final byte[] out = new byte[33];
        out[0] = 0x02;
        System.arraycopy(x, 0, out, 1, 32);
        return out;
    }

    /** @return true when the normalized point has an even Y */
    public static boolean hasEvenY(final ECPoint p) {
        return !p.normalize().getAffineYCoord().toBigInteger().testBit(0);
    }

    /**
     * The FIPS Noise DH on the active backend: SHA-256 of the 32-byte X of {@code sk}·{@code peer} (the result's
     * parity is discarded).
     *
     * @param sk   32-byte secret key, 1 <= k < n
     * @param peer 33-byte SEC1 compressed public key
     * @return the 32-byte DH output
     * @throws IllegalArgumentException when {@code sk} is not a valid secret or {@code peer} not a valid key
     */
    public static byte[] ecdh(final byte[] sk, final byte[] peer) {
        scalar(sk);
        if (peer == null || peer.length != 33 || (peer[0] != 0x02 && peer[0] != 0x03)) {
            throw new IllegalArgumentException("public key is not a 33-byte compressed secp256k1 point");
        }
        return Secp256k1Backends.active().ecdh(sk, peer);
    }

    /**
     * The FIPS Noise DH on BouncyCastle: SHA-256 of the 32-byte X of {@code sk}·{@code peer} (the result's parity
     * is discarded).
     */
    public static byte[] ecdh(final byte[] sk, final ECPoint peer) {
        final ECPoint q = peer.multiply(scalar(sk)).normalize();
        if (q.isInfinity()) {
            throw new IllegalArgumentException("ECDH produced the point at infinity");
        }
        return sha256(xOnly(q));
    }

    /** @return SHA-256 of the concatenation of {@code parts} */
    public static byte[] sha256(final byte[]... parts) {
        try {
            final MessageDigest md = MessageDigest.getInstance("SHA-256");
            for (final byte[] p : parts) {
                md.update(p);
            }
            return md.digest();
        } catch (final NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 missing from the JDK", e);
        }
    }

    /** @return {@code v} (0 <= v < 2^256) as 32 big-endian bytes */
    public static byte[] to32(final BigInteger v) {
        final byte[] raw = v.toByteArray();
        if (raw.length == 32) {
            return raw;
        }
        final byte[] out = new byte[32];
        if (raw.length > 32) {
            System.arraycopy(raw, raw.length - 32, out, 0, 32);
        } else {
            System.arraycopy(raw, 0, out, 32 - raw.length, raw.length);
        }
        return out;
    }

    /** Overwrites a secret with zeros. */
    public static void wipe(final byte[] secret) {
        if (secret != null) {
            Arrays.fill(secret, (byte) 0);
        }
    }
}
