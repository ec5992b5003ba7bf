package net.fips.control.noise;

import java.util.HexFormat;
import java.util.Random;

import net.fips.control.crypto.Secp256k1;
import net.fips.control.identity.TestIdentities;

/** Deterministic keys and a complete-handshake driver shared by the Noise tests. */
final class NoiseTestKeys {
    static final HexFormat HEX = HexFormat.of();

    private NoiseTestKeys() {
    }

    /** @return an 8-byte epoch drawn from {@code rnd} */
    static byte[] epoch(final Random rnd) {
        final byte[] e = new byte[8];
        rnd.nextBytes(e);
        return e;
    }

    /** @return a deterministic ephemeral source over {@code rnd} */
    static EphemeralSource ephemerals(final Random rnd) {
        return () -> TestIdentities.secret(rnd);
    }

    /** A pair of fresh handshake states plus the inputs that made them. */
    record Pair(HandshakeState init, HandshakeState resp, byte[] initStatic, byte[] respStatic, byte[] initEpoch,
                byte[] respEpoch) {

        static Pair of(final HandshakeState.Pattern pattern, final Random rnd) throws NoiseException {
            final byte[] is = TestIdentities.secret(rnd);
            final byte[] rs = TestIdentities.secret(rnd);
            final byte[] ie = epoch(rnd);
            final byte[] re = epoch(rnd);
            return new Pair(
                    HandshakeState.initiator(pattern, is, Secp256k1.compressed(rs), ie, ephemerals(rnd)),
                    HandshakeState.responder(pattern, rs, re, ephemerals(rnd)), is, rs, ie, re);
        }

        /** Runs every message; returns the messages as sent. */
        byte[][] run() throws NoiseException {
            final byte[] m1 = init.writeMessage1();
            resp.readMessage1(m1);
            final byte[] m2 = resp.writeMessage2();
            init.readMessage2(m2);
            if (init.pattern() == HandshakeState.Pattern.IK) {
                return new byte[][] {m1, m2};
            }
            final byte[] m3 = init.writeMessage3();
            resp.readMessage3(m3);
            return new byte[][] {m1, m2, m3};
        }
    }
}
