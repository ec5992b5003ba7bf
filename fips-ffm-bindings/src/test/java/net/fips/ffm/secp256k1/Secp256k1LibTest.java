package net.fips.ffm.secp256k1;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import net.fips.ffm.secp256k1.gen.secp256k1_keypair;
import net.fips.ffm.secp256k1.gen.secp256k1_pubkey;
import net.fips.ffm.secp256k1.gen.secp256k1_schnorrsig_extraparams;
import net.fips.ffm.secp256k1.gen.secp256k1_xonly_pubkey;

/**
 * The probe's two outcomes, and the wrapper against BIP-340 and secp256k1 facts directly (no control-plane types);
 * the control plane's conformance suite checks every vector through it.
 */
class Secp256k1LibTest {
    private static final HexFormat HEX = HexFormat.of();
    /** BIP-340 test vector 0 (secret key 3, zero aux, zero message). */
    private static final byte[] SK3 = HEX.parseHex("0000000000000000000000000000000000000000000000000000000000000003");
    private static final String PK3 = "f9308a019258c31049344f85f89d5229b531c845836f99b08601f113bce036f9";
    private static final String SIG0 = "e907831f80848d1069a5371b402410364bdf1c5f8307b0084c55f1ce2dca8215"
            + "25f66a4a85ea8b71e482a74f382d2ce5ebeee8fdb2172f477df4900d310536c0";
    /** The group order n: not a valid secret. */
    private static final byte[] N = HEX.parseHex("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141");

    private static void needsLibrary() {
        assumeTrue(Secp256k1Lib.isAvailable(), () -> "libsecp256k1 unavailable: " + Secp256k1Lib.unavailableReason());
    }

    @Test
    void aMissingLibraryIsReportedNotThrown() {
        final Object[] outcome = Secp256k1Lib.Probe.probe("libfips-no-such-secp256k1.so.9");
        assertNull(outcome[0]);
        assertTrue(((String) outcome[2]).startsWith("libfips-no-such-secp256k1.so.9 could not be loaded"),
                (String) outcome[2]);
    }

    @Test
    void generatedLayoutsHaveTheHeaderSizes() {
        // Pure layout arithmetic: the generated class is not touched, so this runs without the library too.
        assertEquals(64, secp256k1_pubkey.sizeof());
        assertEquals(64, secp256k1_xonly_pubkey.sizeof());
        assertEquals(96, secp256k1_keypair.sizeof());
        assertEquals(24, secp256k1_schnorrsig_extraparams.sizeof());
        assertEquals(0, secp256k1_schnorrsig_extraparams.magic$offset());
        assertEquals(8, secp256k1_schnorrsig_extraparams.noncefp$offset());
        assertEquals(16, secp256k1_schnorrsig_extraparams.ndata$offset());
    }

    @Test
    void publicKeysAndBadSecrets() {
        needsLibrary();
        assertNull(Secp256k1Lib.unavailableReason());
        final byte[] pub = Secp256k1Lib.publicKey(SK3);
        assertEquals(33, pub.length);
        assertEquals(PK3, HEX.formatHex(pub, 1, 33));
        assertTrue(Secp256k1Lib.isValidPublicKey(pub));
        assertTrue(Secp256k1Lib.isValidXOnly(HEX.parseHex(PK3)));
        assertThrows(IllegalArgumentException.class, () -> Secp256k1Lib.publicKey(new byte[32]));
        assertThrows(IllegalArgumentException.class, () -> Secp256k1Lib.publicKey(N));
        assertThrows(IllegalArgumentException.class, () -> Secp256k1Lib.publicKey(new byte[31]));
    }

    @Test
    void malformedKeysAreInvalidNotFatal() {
        needsLibrary();
        final byte[] pub = Secp256k1Lib.publicKey(SK3);
        final byte[] wrongPrefix = pub.clone();
        wrongPrefix[0] = 0x04;
        assertFalse(Secp256k1Lib.isValidPublicKey(wrongPrefix));
        assertFalse(Secp256k1Lib.isValidPublicKey(new byte[33]));
        assertFalse(Secp256k1Lib.isValidPublicKey(new byte[32]));
        assertFalse(Secp256k1Lib.isValidPublicKey(null));
        // x = 5 is not the X of a curve point (5^3 + 7 = 132 is not a square mod p).
        final byte[] offCurve = new byte[32];
        offCurve[31] = 5;
        assertFalse(Secp256k1Lib.isValidXOnly(offCurve));
        assertFalse(Secp256k1Lib.isValidXOnly(new byte[33]));
        assertThrows(IllegalArgumentException.class, () -> Secp256k1Lib.sharedX(SK3, wrongPrefix));
    }

    @Test
    void ecdhIsSymmetricAndGivesX() {
        needsLibrary();
        final byte[] a = HEX.parseHex("b7e151628aed2a6abf7158809cf4f3c762e7160f38b4da56a784d9045190cfef");
        final byte[] one = new byte[32];
        one[31] = 1;
        // 1 * (3G) = 3G: the shared X is the public key's X.
        assertEquals(PK3, HEX.formatHex(Secp256k1Lib.sharedX(one, Secp256k1Lib.publicKey(SK3))));
        assertArrayEquals(Secp256k1Lib.sharedX(a, Secp256k1Lib.publicKey(SK3)),
                Secp256k1Lib.sharedX(SK3, Secp256k1Lib.publicKey(a)));
        assertThrows(IllegalArgumentException.class, () -> Secp256k1Lib.sharedX(N, Secp256k1Lib.publicKey(a)));
    }

    @Test
    void theSharedContextServesThreadsAtOnce() throws Exception {
        needsLibrary();
        final byte[] a = HEX.parseHex("b7e151628aed2a6abf7158809cf4f3c762e7160f38b4da56a784d9045190cfef");
        final byte[] peer = Secp256k1Lib.publicKey(SK3);
        final byte[] shared = Secp256k1Lib.sharedX(a, peer);
        final byte[] zero = new byte[32];
        final byte[] sig = HEX.parseHex(SIG0);
        final ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            final List<Future<Boolean>> results = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                results.add(pool.submit(() -> {
                    for (int i = 0; i < 50; i++) {
                        if (!Arrays.equals(shared, Secp256k1Lib.sharedX(a, peer))
                                || !Arrays.equals(sig, Secp256k1Lib.signSchnorr(SK3, zero, zero))
                                || !Secp256k1Lib.verifySchnorr(HEX.parseHex(PK3), zero, sig)) {
                            return false;
                        }
                    }
                    return true;
                }));
            }
            for (final Future<Boolean> r : results) {
                assertTrue(r.get(60, TimeUnit.SECONDS));
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void schnorrReproducesBip340VectorZero() {
        needsLibrary();
        final byte[] zero = new byte[32];
        assertEquals(SIG0, HEX.formatHex(Secp256k1Lib.signSchnorr(SK3, zero, zero)));
        assertTrue(Secp256k1Lib.verifySchnorr(HEX.parseHex(PK3), zero, HEX.parseHex(SIG0)));
        final byte[] bad = HEX.parseHex(SIG0);
        bad[63] ^= 1;
        assertFalse(Secp256k1Lib.verifySchnorr(HEX.parseHex(PK3), zero, bad));
        assertFalse(Secp256k1Lib.verifySchnorr(HEX.parseHex(PK3), zero, new byte[63]));
        // Any message length, including none.
        final byte[] empty = new byte[0];
        assertTrue(Secp256k1Lib.verifySchnorr(HEX.parseHex(PK3), empty, Secp256k1Lib.signSchnorr(SK3, empty, zero)));
        assertThrows(IllegalArgumentException.class, () -> Secp256k1Lib.signSchnorr(SK3, zero, new byte[31]));
    }
}
