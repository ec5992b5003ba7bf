package net.fips.control.noise;

import static net.fips.control.noise.NoiseTestKeys.HEX;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;

import org.junit.jupiter.api.Test;

import net.fips.control.noise.NoiseException.Reason;

/** Nonce layout, counters, HKDF, symmetric-state primitives and the transport session's replay handling. */
class NoiseCipherStateTest {

    private static byte[] key(final int b) {
        final byte[] k = new byte[32];
        Arrays.fill(k, (byte) b);
        return k;
    }

    @Test
    void nonceIsFourZeroBytesThenCounterLittleEndian() {
        assertEquals("000000000000000000000000", HEX.formatHex(CipherState.nonce(0)));
        assertEquals("000000000100000000000000", HEX.formatHex(CipherState.nonce(1)));
        assertEquals("000000000807060504030201", HEX.formatHex(CipherState.nonce(0x0102030405060708L)));
        assertEquals("00000000ffffffffffffffff", HEX.formatHex(CipherState.nonce(-1L)));
    }

    @Test
    void internalCounterAdvancesPerMessageAndMatchesExplicitCounter() throws Exception {
        final CipherState tx = new CipherState(key(7));
        final CipherState rx = new CipherState(key(7));
        final byte[] ad = {9, 9};
        for (int i = 0; i < 5; i++) {
            assertEquals(i, tx.nonce());
            final byte[] pt = {(byte) i, 1, 2};
            final byte[] ct = tx.encrypt(ad, pt);
            assertEquals(pt.length + CipherState.TAG_BYTES, ct.length);
            assertArrayEquals(pt, rx.decryptWithCounter(i, ad, ct));
            assertEquals(0, rx.nonce(), "explicit-counter opens leave the internal counter alone");
        }
        final CipherState inOrder = new CipherState(key(7));
        final CipherState tx2 = new CipherState(key(7));
        final byte[] ct = tx2.encrypt(null, new byte[] {42});
        assertArrayEquals(new byte[] {42}, inOrder.decrypt(new byte[0], ct), "null and empty AD are the same");
        assertEquals(1, inOrder.nonce());
    }

    @Test
    void wrongCounterKeyOrAdFailsAuthentication() throws Exception {
        final byte[] ct = new CipherState(key(1)).encrypt(new byte[] {1}, new byte[] {5, 6, 7});
        final CipherState rx = new CipherState(key(1));
        assertEquals(Reason.DECRYPT_FAILED,
                assertThrows(NoiseException.class, () -> rx.decryptWithCounter(1, new byte[] {1}, ct)).reason());
        assertEquals(Reason.DECRYPT_FAILED,
                assertThrows(NoiseException.class, () -> rx.decryptWithCounter(0, new byte[] {2}, ct)).reason());
        assertEquals(Reason.DECRYPT_FAILED, assertThrows(NoiseException.class,
                () -> new CipherState(key(2)).decryptWithCounter(0, new byte[] {1}, ct)).reason());
        assertEquals(Reason.WRONG_LENGTH,
                assertThrows(NoiseException.class, () -> rx.decryptWithCounter(0, null, new byte[15])).reason());
        assertArrayEquals(new byte[] {5, 6, 7}, rx.decryptWithCounter(0, new byte[] {1}, ct));
    }

    @Test
    void counterStopsBeforeTwoToTheSixtyFour() throws Exception {
        final CipherState c = new CipherState(key(3));
        c.setNonce(-2L);
        c.encrypt(null, new byte[1]);
        assertEquals(-1L, c.nonce());
        assertEquals(Reason.NONCE_OVERFLOW,
                assertThrows(NoiseException.class, () -> c.encrypt(null, new byte[1])).reason());
        assertEquals(Reason.NONCE_OVERFLOW, assertThrows(NoiseException.class, c::takeCounter).reason());
    }

    @Test
    void sizeLimitsAndKeyLength() throws Exception {
        final CipherState c = new CipherState(key(4));
        assertEquals(CipherState.MAX_MESSAGE_BYTES, c.encrypt(null, new byte[CipherState.MAX_PLAINTEXT_BYTES]).length);
        assertEquals(Reason.MESSAGE_TOO_LARGE, assertThrows(NoiseException.class,
                () -> c.encrypt(null, new byte[CipherState.MAX_PLAINTEXT_BYTES + 1])).reason());
        assertEquals(1, c.nonce(), "a refused message consumes no counter");
        assertEquals(Reason.WRONG_LENGTH,
                assertThrows(NoiseException.class, () -> new CipherState(new byte[31])).reason());
    }

    @Test
    void keylessCipherPassesThroughAsNoiseSpecifies() throws Exception {
        final CipherState c = new CipherState();
        assertFalse(c.hasKey());
        assertArrayEquals(new byte[] {1, 2}, c.encrypt(null, new byte[] {1, 2}));
        assertEquals(Reason.WRONG_STATE,
                assertThrows(NoiseException.class, () -> c.decryptWithCounter(0, null, new byte[16])).reason());
    }

    /** RFC 5869 test case 3 (salt absent = HashLen zeros, empty info): the first 42 bytes of our 64-byte output. */
    @Test
    void hkdfMatchesRfc5869() {
        final byte[] ikm = new byte[22];
        Arrays.fill(ikm, (byte) 0x0b);
        final byte[][] t = SymmetricState.hkdf2(new byte[32], ikm);
        final byte[] okm = new byte[64];
        System.arraycopy(t[0], 0, okm, 0, 32);
        System.arraycopy(t[1], 0, okm, 32, 32);
        assertEquals("8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8",
                HEX.formatHex(okm, 0, 42));
    }

    @Test
    void symmetricStateInitialValuesAndCopyIndependence() throws Exception {
        final SymmetricState ik = SymmetricState.initialize(HandshakeState.Pattern.IK.protocolName());
        assertEquals("15bea16f93969bcae868e128bcbdc110b1d88a5306b367632171a9aaaad3f533",
                HEX.formatHex(ik.handshakeHash()));
        assertArrayEquals(ik.handshakeHash(), ik.chainingKey());
        final SymmetricState xk = SymmetricState.initialize(HandshakeState.Pattern.XK.protocolName());
        assertEquals("2640f52eebcd9e882958951c794250eedb28002c05d7dc2ea0f195406042caf1",
                HEX.formatHex(xk.handshakeHash()));
        final SymmetricState shortName = SymmetricState.initialize("Noise_NN");
        assertEquals("4e6f6973655f4e4e" + "00".repeat(24), HEX.formatHex(shortName.handshakeHash()));

        final SymmetricState copy = ik.copy();
        copy.mixKey(key(9));
        copy.encryptAndHash(new byte[] {1});
        assertNotEquals(HEX.formatHex(ik.chainingKey()), HEX.formatHex(copy.chainingKey()));
        assertEquals(-1L, ik.snapshot().n());
        assertEquals(1L, copy.snapshot().n());
    }

    @Test
    void decryptAndHashLeavesHashAloneOnFailure() throws Exception {
        final SymmetricState a = SymmetricState.initialize("x".repeat(40));
        a.mixKey(key(1));
        final SymmetricState b = a.copy();
        final byte[] ct = a.encryptAndHash(new byte[] {7, 7});
        final byte[] tampered = ct.clone();
        tampered[0] ^= 1;
        final byte[] hBefore = b.handshakeHash();
        assertThrows(NoiseException.class, () -> b.copy().decryptAndHash(tampered));
        assertArrayEquals(hBefore, b.handshakeHash());
        assertArrayEquals(new byte[] {7, 7}, b.decryptAndHash(ct));
        assertArrayEquals(a.handshakeHash(), b.handshakeHash());
    }

    @Test
    void transportSessionRejectsReplaysAndOnlyAcceptsAfterAuthentication() throws Exception {
        final TransportSession a = new TransportSession(key(1), key(2));
        final TransportSession b = new TransportSession(key(2), key(1));
        final byte[] hdr = {0, 0, 5, 0};
        final byte[] c0 = a.encrypt(hdr, new byte[] {10});
        final byte[] c1 = a.encrypt(hdr, new byte[] {11});
        final byte[] c2 = a.encrypt(hdr, new byte[] {12});
        assertEquals(3, a.nextSendCounter());

        // A forgery with a fresh counter must not burn that counter.
        final byte[] forged = c2.clone();
        forged[forged.length - 1] ^= 0x40;
        assertEquals(Reason.DECRYPT_FAILED,
                assertThrows(NoiseException.class, () -> b.decrypt(2, hdr, forged)).reason());
        assertTrue(b.checkReplay(2));
        assertEquals(0, b.highestReceived());

        assertArrayEquals(new byte[] {12}, b.decrypt(2, hdr, c2));
        assertArrayEquals(new byte[] {10}, b.decrypt(0, hdr, c0), "late but inside the window");
        assertEquals(Reason.REPLAY, assertThrows(NoiseException.class, () -> b.decrypt(2, hdr, c2)).reason());
        assertEquals(Reason.REPLAY, assertThrows(NoiseException.class, () -> b.decrypt(0, hdr, c0)).reason());
        assertEquals(Reason.DECRYPT_FAILED, assertThrows(NoiseException.class,
                () -> b.decrypt(1, new byte[] {0, 1, 5, 0}, c1)).reason(), "the header is authenticated");
        assertArrayEquals(new byte[] {11}, b.decrypt(1, hdr, c1));
        assertEquals(2, b.highestReceived());

        assertEquals(0, a.takeSendCounter() - 3);
        assertEquals(4, a.nextSendCounter());
        a.destroy();
        assertEquals(Reason.WRONG_STATE,
                assertThrows(NoiseException.class, () -> a.encrypt(hdr, new byte[1])).reason());
    }
}
