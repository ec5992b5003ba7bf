package net.fips.dataplane.ble;

import java.math.BigInteger;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

import net.fips.dataplane.wire.NodeAddr;
import net.fips.testing.Hex;

/** {@link PeerKeys} for tests: lift_x by Euler's criterion over secp256k1's field, NodeAddr = SHA-256[0..16]. */
public final class TestKeys implements PeerKeys {
    public static final TestKeys INSTANCE = new TestKeys();
    private static final BigInteger P = new BigInteger(
            "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFFC2F", 16);
    /** The x-only key of secret 1 (the generator's x), valid. */
    public static final byte[] G_X = Hex.bytes("79BE667EF9DCBBAC55A06295CE870B07029BFCDB2DCE28D959F2815B16F81798");
    /** The x-only key of secret 2, valid. */
    public static final byte[] TWO_G_X = Hex.bytes("C6047F9441ED7D6D3045406E95C07CD85C778E4B8CEF3CA7ABAC09B95C709EE5");
    /** x = 5: 5^3 + 7 = 132 is not a square mod p, so no point. */
    static final byte[] NOT_ON_CURVE = Hex.bytes("0000000000000000000000000000000000000000000000000000000000000005");

    @Override
    public boolean isValidXOnly(final byte[] xOnly) {
        final BigInteger x = new BigInteger(1, xOnly);
        if (x.compareTo(P) >= 0) {
            return false;
        }
        final BigInteger rhs = x.modPow(BigInteger.valueOf(3), P).add(BigInteger.valueOf(7)).mod(P);
        return rhs.signum() == 0 || rhs.modPow(P.subtract(BigInteger.ONE).shiftRight(1), P).equals(BigInteger.ONE);
    }

    @Override
    public NodeAddr nodeAddr(final byte[] xOnly) {
        try {
            return NodeAddr.of(MessageDigest.getInstance("SHA-256").digest(xOnly), 0);
        } catch (final NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }
}
