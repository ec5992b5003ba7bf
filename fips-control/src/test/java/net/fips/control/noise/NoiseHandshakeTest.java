package net.fips.control.noise;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import net.fips.control.crypto.Secp256k1;
import net.fips.control.noise.HandshakeState.Pattern;
import net.fips.control.noise.HandshakeState.Progress;
import net.fips.control.noise.NoiseException.Reason;
import net.fips.control.noise.NoiseTestKeys.Pair;
import net.fips.control.identity.TestIdentities;

/** Round trips, tampering, wrong keys, wrong states and wrong lengths for both handshake patterns. */
class NoiseHandshakeTest {

    private static void assertReason(final Reason want, final Executable call) {
        final NoiseException e = assertThrows(NoiseException.class, call);
        assertEquals(want, e.reason(), e.getMessage());
    }

    @ParameterizedTest
    @EnumSource(Pattern.class)
    void roundTripWithRandomKeys(final Pattern pattern) throws Exception {
        final Random rnd = new Random(pattern.ordinal() * 1000L + 17);
        for (int i = 0; i < 12; i++) {
            final Pair p = Pair.of(pattern, rnd);
            final byte[][] msgs = p.run();
            if (pattern == Pattern.IK) {
                assertEquals(HandshakeState.IK_MSG1_BYTES, msgs[0].length);
                assertEquals(106, msgs[0].length);
                assertEquals(57, msgs[1].length);
            } else {
                assertEquals(33, msgs[0].length);
                assertEquals(57, msgs[1].length);
                assertEquals(73, msgs[2].length);
            }
            assertArrayEquals(p.init().handshakeHash(), p.resp().handshakeHash());
            final HandshakeResult ri = p.init().finish();
            final HandshakeResult rr = p.resp().finish();
            assertArrayEquals(ri.sendKey(), rr.recvKey());
            assertArrayEquals(ri.recvKey(), rr.sendKey());
            assertFalse(Arrays.equals(ri.sendKey(), ri.recvKey()));
            assertArrayEquals(ri.initiatorToResponderKey(), rr.initiatorToResponderKey());
            assertArrayEquals(Secp256k1.compressed(p.initStatic()), rr.remoteStatic());
            assertArrayEquals(Secp256k1.compressed(p.respStatic()), ri.remoteStatic());
            assertArrayEquals(p.initEpoch(), rr.remoteEpoch());
            assertArrayEquals(p.respEpoch(), ri.remoteEpoch());
            assertArrayEquals(ri.handshakeHash(), rr.handshakeHash());

            final TransportSession a = ri.newTransportSession();
            final TransportSession b = rr.newTransportSession();
            final byte[] hdr = {1, 2, 3};
            for (int n = 0; n < 3; n++) {
                final byte[] pt = ("msg " + n).getBytes(StandardCharsets.US_ASCII);
                final long c = a.nextSendCounter();
                assertEquals(n, c);
                assertArrayEquals(pt, b.decrypt(c, hdr, a.encrypt(hdr, pt)));
                final long c2 = b.nextSendCounter();
                assertArrayEquals(pt, a.decrypt(c2, hdr, b.encrypt(hdr, pt)));
            }
        }
    }

    /** An initiator that knows the responder only by npub uses the even lift; the reference still interoperates. */
    @ParameterizedTest
    @EnumSource(Pattern.class)
    void initiatorMayHoldTheEvenLiftOfAnOddResponderKey(final Pattern pattern) throws Exception {
        final Random rnd = new Random(99 + pattern.ordinal());
        byte[] rs;
        do {
            rs = TestIdentities.secret(rnd);
        } while (Secp256k1.compressed(rs)[0] != 0x03);
        final byte[] lifted = Secp256k1.compressedFromXOnly(Secp256k1.xOnly(rs));
        assertEquals(0x02, lifted[0]);
        final byte[] is = TestIdentities.secret(rnd);
        final Pair p = new Pair(
                HandshakeState.initiator(pattern, is, lifted, new byte[8], NoiseTestKeys.ephemerals(rnd)),
                HandshakeState.responder(pattern, rs, new byte[8], NoiseTestKeys.ephemerals(rnd)), is, rs,
                new byte[8], new byte[8]);
        p.run();
        final HandshakeResult ri = p.init().finish();
        final HandshakeResult rr = p.resp().finish();
        assertArrayEquals(ri.sendKey(), rr.recvKey());
        assertArrayEquals(lifted, ri.remoteStatic());
    }

    @ParameterizedTest
    @EnumSource(Pattern.class)
    void wrongResponderStaticFails(final Pattern pattern) throws Exception {
        final Random rnd = new Random(5);
        final byte[] is = TestIdentities.secret(rnd);
        final byte[] realResponder = TestIdentities.secret(rnd);
        final byte[] someoneElse = TestIdentities.secret(rnd);
        final HandshakeState init = HandshakeState.initiator(pattern, is, Secp256k1.compressed(someoneElse),
                new byte[8], NoiseTestKeys.ephemerals(rnd));
        final HandshakeState resp = HandshakeState.responder(pattern, realResponder, new byte[8],
                NoiseTestKeys.ephemerals(rnd));
        final byte[] m1 = init.writeMessage1();
        if (pattern == Pattern.IK) {
            // The static key in msg1 is sealed under es, which the real responder derives differently.
            assertReason(Reason.DECRYPT_FAILED, () -> resp.readMessage1(m1));
            assertEquals(Progress.INITIAL, resp.progress());
        } else {
            // XK msg1 is unauthenticated; the mismatch shows when the initiator opens msg2's epoch.
            resp.readMessage1(m1);
            final byte[] m2 = resp.writeMessage2();
            assertReason(Reason.DECRYPT_FAILED, () -> init.readMessage2(m2));
            assertEquals(Progress.MESSAGE1_DONE, init.progress());
        }
    }

    /**
     * Every byte of every message, changed two ways. A change must make the handshake fail somewhere, with one
     * exception the reference shares: flipping the parity bit of an ephemeral's prefix (02 <-> 03) negates the
     * point, DH uses X only and h is never authenticated, so such a handshake completes with the same keys.
     */
    @ParameterizedTest
    @EnumSource(Pattern.class)
    void tamperedMessagesAreRejected(final Pattern pattern) throws Exception {
        final Random rnd = new Random(4242 + pattern.ordinal());
        final int messages = pattern == Pattern.IK ? 2 : 3;
        int rejected = 0;
        int benign = 0;
        for (int which = 0; which < messages; which++) {
            final int len = messageLength(pattern, which);
            for (int pos = 0; pos < len; pos++) {
                for (final int mask : new int[] {0x01, 2 + rnd.nextInt(254)}) {
                    final Outcome o = runTampered(pattern, rnd.nextLong(), which, pos, mask);
                    final boolean parityFlipOfEphemeral = pos == 0 && mask == 0x01 && (which < 2);
                    if (o == Outcome.REJECTED) {
                        rejected++;
                    } else {
                        assertTrue(parityFlipOfEphemeral, pattern + " msg" + (which + 1) + " byte " + pos + " ^ "
                                + mask + " was not rejected: " + o);
                        assertEquals(Outcome.SAME_KEYS, o);
                        benign++;
                    }
                }
            }
        }
        assertTrue(rejected > 0);
        assertEquals(2, benign, "only the prefix parity flips of e in msg1 and msg2 go unnoticed");
    }

    private static int messageLength(final Pattern pattern, final int which) {
        if (pattern == Pattern.IK) {
            return which == 0 ? 106 : 57;
        }
        return which == 0 ? 33 : which == 1 ? 57 : 73;
    }

    private enum Outcome { REJECTED, SAME_KEYS, DIFFERENT_KEYS }

    /** Runs a handshake with message {@code which} altered in transit; a failed read is then retried with the
     * genuine bytes, which must succeed because reads are all-or-nothing. */
    private static Outcome runTampered(final Pattern pattern, final long seed, final int which, final int pos,
                                       final int mask) throws NoiseException {
        final Pair p = Pair.of(pattern, new Random(seed));
        final HandshakeState[] readers = {p.resp(), p.init(), p.resp()};
        final HandshakeState[] writers = {p.init(), p.resp(), p.init()};
        boolean failed = false;
        final int messages = pattern == Pattern.IK ? 2 : 3;
        for (int m = 0; m < messages; m++) {
            final byte[] genuine = write(writers[m], m);
            byte[] delivered = genuine;
            if (m == which) {
                delivered = genuine.clone();
                delivered[pos] ^= (byte) mask;
            }
            try {
                read(readers[m], m, delivered);
            } catch (final NoiseException e) {
                if (m != which && !failed) {
                    // A later message failed because an earlier tampered one desynchronised the sides.
                    return Outcome.REJECTED;
                }
                final Progress before = readers[m].progress();
                read(readers[m], m, genuine);
                assertFalse(before == readers[m].progress(), "the genuine message must still be accepted");
                failed = true;
            }
        }
        if (failed) {
            return Outcome.REJECTED;
        }
        final HandshakeResult ri = p.init().finish();
        final HandshakeResult rr = p.resp().finish();
        return Arrays.equals(ri.sendKey(), rr.recvKey()) && Arrays.equals(ri.recvKey(), rr.sendKey())
                ? Outcome.SAME_KEYS : Outcome.DIFFERENT_KEYS;
    }

    private static byte[] write(final HandshakeState hs, final int m) throws NoiseException {
        return switch (m) {
            case 0 -> hs.writeMessage1();
            case 1 -> hs.writeMessage2();
            default -> hs.writeMessage3();
        };
    }

    private static void read(final HandshakeState hs, final int m, final byte[] msg) throws NoiseException {
        switch (m) {
            case 0 -> hs.readMessage1(msg);
            case 1 -> hs.readMessage2(msg);
            default -> hs.readMessage3(msg);
        }
    }

    @ParameterizedTest
    @EnumSource(Pattern.class)
    void callsOutOfOrderAreWrongState(final Pattern pattern) throws Exception {
        final Pair p = Pair.of(pattern, new Random(77));
        final HandshakeState init = p.init();
        final HandshakeState resp = p.resp();
        assertReason(Reason.WRONG_STATE, resp::writeMessage1);
        assertReason(Reason.WRONG_STATE, () -> init.readMessage1(new byte[106]));
        assertReason(Reason.WRONG_STATE, resp::writeMessage2);
        assertReason(Reason.WRONG_STATE, () -> init.readMessage2(new byte[57]));
        assertReason(Reason.WRONG_STATE, init::finish);
        final byte[] m1 = init.writeMessage1();
        assertReason(Reason.WRONG_STATE, init::writeMessage1);
        resp.readMessage1(m1);
        assertReason(Reason.WRONG_STATE, () -> resp.readMessage1(m1));
        final byte[] m2 = resp.writeMessage2();
        assertReason(Reason.WRONG_STATE, resp::writeMessage2);
        init.readMessage2(m2);
        assertReason(Reason.WRONG_STATE, () -> init.readMessage2(m2));
        if (pattern == Pattern.IK) {
            assertReason(Reason.WRONG_STATE, init::writeMessage3);
            assertReason(Reason.WRONG_STATE, () -> resp.readMessage3(new byte[73]));
        } else {
            assertReason(Reason.WRONG_STATE, init::finish);
            assertReason(Reason.WRONG_STATE, resp::writeMessage3);
            final byte[] m3 = init.writeMessage3();
            assertReason(Reason.WRONG_STATE, () -> init.readMessage3(m3));
            resp.readMessage3(m3);
        }
        assertTrue(init.isComplete() && resp.isComplete());
        assertNotNull(init.finish());
        assertReason(Reason.WRONG_STATE, init::finish);
        assertNotNull(resp.finish());
        assertReason(Reason.WRONG_STATE, resp::finish);
    }

    @ParameterizedTest
    @EnumSource(Pattern.class)
    void wrongLengthsAreRefusedWithoutStateChange(final Pattern pattern) throws Exception {
        final Pair p = Pair.of(pattern, new Random(78));
        final byte[] m1 = p.init().writeMessage1();
        for (final byte[] bad : new byte[][] {null, new byte[0], Arrays.copyOf(m1, m1.length - 1),
                Arrays.copyOf(m1, m1.length + 1)}) {
            assertReason(Reason.WRONG_LENGTH, () -> p.resp().readMessage1(bad));
        }
        assertEquals(Progress.INITIAL, p.resp().progress());
        p.resp().readMessage1(m1);
        final byte[] m2 = p.resp().writeMessage2();
        assertReason(Reason.WRONG_LENGTH, () -> p.init().readMessage2(Arrays.copyOf(m2, 56)));
        assertReason(Reason.WRONG_LENGTH, () -> p.init().readMessage2(Arrays.copyOf(m2, 58)));
        p.init().readMessage2(m2);
        if (pattern == Pattern.XK) {
            final byte[] m3 = p.init().writeMessage3();
            assertReason(Reason.WRONG_LENGTH, () -> p.resp().readMessage3(Arrays.copyOf(m3, 72)));
            assertReason(Reason.WRONG_LENGTH, () -> p.resp().readMessage3(Arrays.copyOf(m3, 74)));
            p.resp().readMessage3(m3);
        }
        assertTrue(p.resp().isComplete());
    }

    @ParameterizedTest
    @EnumSource(Pattern.class)
    void badKeysAndEpochsAreRefusedAtConstruction(final Pattern pattern) {
        final Random rnd = new Random(79);
        final byte[] good = TestIdentities.secret(rnd);
        final byte[] goodPub = Secp256k1.compressed(TestIdentities.secret(rnd));
        final byte[] e8 = new byte[8];
        final byte[] order = Secp256k1.to32(Secp256k1.N);
        for (final byte[] badSecret : new byte[][] {null, new byte[32], order, new byte[31], new byte[33]}) {
            assertReason(Reason.INVALID_SECRET_KEY,
                    () -> HandshakeState.initiator(pattern, badSecret, goodPub, e8));
            assertReason(Reason.INVALID_SECRET_KEY, () -> HandshakeState.responder(pattern, badSecret, e8));
        }
        final byte[] wrongPrefix = goodPub.clone();
        wrongPrefix[0] = 0x04;
        final byte[] offCurve = new byte[33];
        offCurve[0] = 0x02;
        offCurve[32] = 5; // x = 5: 125 + 7 = 132 is not a square mod p
        final byte[] xTooBig = new byte[33];
        Arrays.fill(xTooBig, (byte) 0xff);
        xTooBig[0] = 0x02;
        for (final byte[] badPub : new byte[][] {null, wrongPrefix, offCurve, xTooBig,
                Arrays.copyOf(goodPub, 32), Secp256k1.xOnly(good)}) {
            assertReason(Reason.INVALID_PUBLIC_KEY, () -> HandshakeState.initiator(pattern, good, badPub, e8));
        }
        for (final byte[] badEpoch : new byte[][] {null, new byte[7], new byte[9]}) {
            assertReason(Reason.WRONG_LENGTH, () -> HandshakeState.initiator(pattern, good, goodPub, badEpoch));
            assertReason(Reason.WRONG_LENGTH, () -> HandshakeState.responder(pattern, good, badEpoch));
        }
    }

    @ParameterizedTest
    @EnumSource(Pattern.class)
    void invalidInjectedEphemeralIsRefused(final Pattern pattern) throws Exception {
        final Random rnd = new Random(80);
        final byte[] rs = TestIdentities.secret(rnd);
        final HandshakeState init = HandshakeState.initiator(pattern, TestIdentities.secret(rnd),
                Secp256k1.compressed(rs), new byte[8], EphemeralSource.fixed(new byte[32]));
        assertReason(Reason.INVALID_SECRET_KEY, init::writeMessage1);
        assertEquals(Progress.INITIAL, init.progress());
        assertNull(init.localEphemeral());
        final HandshakeState init2 = HandshakeState.initiator(pattern, TestIdentities.secret(rnd),
                Secp256k1.compressed(rs), new byte[8], () -> null);
        assertReason(Reason.INVALID_SECRET_KEY, init2::writeMessage1);
    }

    @ParameterizedTest
    @EnumSource(Pattern.class)
    void responderLearnsIdentityAtTheRightMessage(final Pattern pattern) throws Exception {
        final Pair p = Pair.of(pattern, new Random(81));
        assertNull(p.resp().remoteStatic());
        p.resp().readMessage1(p.init().writeMessage1());
        if (pattern == Pattern.IK) {
            assertArrayEquals(Secp256k1.compressed(p.initStatic()), p.resp().remoteStatic());
            assertArrayEquals(p.initEpoch(), p.resp().remoteEpoch());
        } else {
            assertNull(p.resp().remoteStatic(), "XK hides the initiator until msg3");
            assertNull(p.resp().remoteEpoch());
        }
        p.init().readMessage2(p.resp().writeMessage2());
        assertArrayEquals(p.respEpoch(), p.init().remoteEpoch());
    }

    @Test
    void defaultEphemeralsDifferPerHandshake() throws Exception {
        final Random rnd = new Random(82);
        final byte[] rs = TestIdentities.secret(rnd);
        final byte[] is = TestIdentities.secret(rnd);
        final byte[] a = HandshakeState.initiator(Pattern.XK, is, Secp256k1.compressed(rs), new byte[8])
                .writeMessage1();
        final byte[] b = HandshakeState.initiator(Pattern.XK, is, Secp256k1.compressed(rs), new byte[8])
                .writeMessage1();
        assertFalse(Arrays.equals(a, b));
    }
}
