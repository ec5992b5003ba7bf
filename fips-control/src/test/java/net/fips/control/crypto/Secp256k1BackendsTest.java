package net.fips.control.crypto;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.HexFormat;
import java.util.Random;

import org.junit.jupiter.api.Test;

import net.fips.control.identity.TestIdentities;

/**
 * The two secp256k1 backends against each other on seeded random inputs (every operation, byte for byte, including
 * malformed keys and BIP-340 messages of lengths the official vectors leave out), and the choice between them.
 * Without libsecp256k1 the cross-checks are skipped with the probe's reason.
 */
class Secp256k1BackendsTest {
    private static final HexFormat HEX = HexFormat.of();
    private static final int ROUNDS = 64;

    private static Secp256k1Backend nativeOrSkip() {
        final Secp256k1Backend n = Secp256k1Backends.libsecp256k1();
        assumeTrue(n != null, () -> "libsecp256k1 unavailable: " + Secp256k1Backends.libsecp256k1UnavailableReason());
        return n;
    }

    @Test
    void keysAndEcdhAreIdentical() {
        final Secp256k1Backend lib = nativeOrSkip();
        final Secp256k1Backend bc = Secp256k1Backends.bouncyCastle();
        final Random rnd = new Random(0x5ec9256L);
        for (int i = 0; i < ROUNDS; i++) {
            final byte[] a = TestIdentities.secret(rnd);
            final byte[] b = TestIdentities.secret(rnd);
            final byte[] pa = bc.compressed(a);
            assertArrayEquals(pa, lib.compressed(a), "compressed key " + i);
            final byte[] pb = lib.compressed(b);
            final byte[] dh = bc.ecdh(a, pb);
            assertArrayEquals(dh, lib.ecdh(a, pb), "ecdh " + i);
            assertArrayEquals(dh, lib.ecdh(b, pa), "ecdh symmetric " + i);
            // The other parity of the same X gives the same DH: only X enters the hash.
            final byte[] flipped = pb.clone();
            flipped[0] ^= 0x01;
            assertArrayEquals(dh, lib.ecdh(a, flipped), "ecdh other parity " + i);
            assertArrayEquals(dh, bc.ecdh(a, flipped), "ecdh other parity (bc) " + i);
        }
    }

    @Test
    void validityVerdictsAreIdentical() {
        final Secp256k1Backend lib = nativeOrSkip();
        final Secp256k1Backend bc = Secp256k1Backends.bouncyCastle();
        final Random rnd = new Random(42);
        int valid = 0;
        for (int i = 0; i < ROUNDS; i++) {
            // Random X: about half are on the curve.
            final byte[] x = new byte[32];
            rnd.nextBytes(x);
            final byte[] c = new byte[33];
            c[0] = (byte) (2 + (i & 1));
            System.arraycopy(x, 0, c, 1, 32);
            final boolean v = bc.isValidXOnly(x);
            valid += v ? 1 : 0;
            assertEquals(v, lib.isValidXOnly(x), "x-only " + HEX.formatHex(x));
            assertEquals(v, bc.isValidCompressed(c), "compressed (bc) " + HEX.formatHex(c));
            assertEquals(v, lib.isValidCompressed(c), "compressed " + HEX.formatHex(c));
            if (!v) {
                final byte[] sk = TestIdentities.secret(rnd);
                assertThrows(IllegalArgumentException.class, () -> lib.ecdh(sk, c));
                assertThrows(IllegalArgumentException.class, () -> bc.ecdh(sk, c));
            }
        }
        assertTrue(valid > 8 && valid < ROUNDS - 8, "expected a mix of valid and invalid keys, got " + valid);
        // X = p (not below the field prime) and X = 0 (not on the curve).
        final byte[] p = Secp256k1.to32(Secp256k1.P);
        for (final byte[] x : new byte[][] {p, new byte[32]}) {
            assertFalse(lib.isValidXOnly(x));
            assertFalse(bc.isValidXOnly(x));
        }
    }

    @Test
    void schnorrSignaturesAreIdenticalForEveryMessageLength() {
        final Secp256k1Backend lib = nativeOrSkip();
        final Secp256k1Backend bc = Secp256k1Backends.bouncyCastle();
        final Random rnd = new Random(340);
        for (final int len : new int[] {0, 1, 17, 31, 32, 33, 64, 100, 1000}) {
            final byte[] sk = TestIdentities.secret(rnd);
            final byte[] msg = new byte[len];
            final byte[] aux = new byte[32];
            rnd.nextBytes(msg);
            rnd.nextBytes(aux);
            final byte[] sig = bc.sign(sk, msg, aux);
            assertArrayEquals(sig, lib.sign(sk, msg, aux), "signature, message length " + len);
            final byte[] pub = Secp256k1.xOnly(sk);
            assertTrue(lib.verify(pub, msg, sig));
            final byte[] bad = sig.clone();
            bad[len % 64] ^= 0x40;
            assertFalse(lib.verify(pub, msg, bad));
            assertFalse(bc.verify(pub, msg, bad));
        }
    }

    @Test
    void propertyChoosesTheBackend() {
        assertSame(Secp256k1Backends.bouncyCastle(), Secp256k1Backends.choose("bc"));
        assertSame(Secp256k1Backends.bouncyCastle(), Secp256k1Backends.choose(" BC "));
        final Secp256k1Backend expected = Secp256k1Backends.libsecp256k1() != null
                ? Secp256k1Backends.libsecp256k1() : Secp256k1Backends.bouncyCastle();
        assertSame(expected, Secp256k1Backends.choose(null));
        assertSame(expected, Secp256k1Backends.choose("native"));
        assertSame(expected, Secp256k1Backends.choose("something-else"));
        assertEquals(Secp256k1Backends.libsecp256k1() == null,
                Secp256k1Backends.libsecp256k1UnavailableReason() != null);
    }

    @Test
    void useSwitchesWhatTheFacadesCall() {
        final int[] calls = new int[1];
        final Secp256k1Backend bc = Secp256k1Backends.bouncyCastle();
        final Secp256k1Backend counting = new Secp256k1Backend() {
            @Override
            public String name() {
                return "counting";
            }

            @Override
            public byte[] compressed(final byte[] sk) {
                calls[0]++;
                return bc.compressed(sk);
            }

            @Override
            public boolean isValidCompressed(final byte[] p33) {
                calls[0]++;
                return bc.isValidCompressed(p33);
            }

            @Override
            public boolean isValidXOnly(final byte[] x) {
                calls[0]++;
                return bc.isValidXOnly(x);
            }

            @Override
            public byte[] ecdh(final byte[] sk, final byte[] peer) {
                calls[0]++;
                return bc.ecdh(sk, peer);
            }

            @Override
            public byte[] sign(final byte[] sk, final byte[] msg, final byte[] aux) {
                calls[0]++;
                return bc.sign(sk, msg, aux);
            }

            @Override
            public boolean verify(final byte[] xOnlyPub, final byte[] msg, final byte[] sig) {
                calls[0]++;
                return bc.verify(xOnlyPub, msg, sig);
            }
        };
        final Secp256k1Backend before = Secp256k1Backends.use(counting);
        try {
            assertSame(counting, Secp256k1Backends.active());
            final byte[] sk = TestIdentities.secret(new Random(7));
            final byte[] pub = Secp256k1.compressed(sk);
            Secp256k1.ecdh(sk, pub);
            Secp256k1.isValidCompressed(pub);
            Secp256k1.isValidXOnly(Secp256k1.xOnly(sk));
            Schnorr.verify(Secp256k1.xOnly(sk), new byte[32], Schnorr.sign(sk, new byte[32], new byte[32]));
            assertEquals(8, calls[0]);
        } finally {
            Secp256k1Backends.use(before);
        }
        if (before != null) {
            assertSame(before, Secp256k1Backends.active());
        }
        assertTrue(Secp256k1Backends.active() != counting, "the restored choice is a real backend");
    }
}
