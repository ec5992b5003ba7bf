package net.fips.control.identity;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.SignatureException;
import java.util.Arrays;

import org.junit.jupiter.api.Test;

import net.fips.control.crypto.Secp256k1;

/** The auth challenge: digest layout (big-endian timestamp) and verification. */
class IdentityAuthChallengeTest {

    @Test
    void digestIsDomainChallengeAndBigEndianTimestamp() {
        final byte[] challenge = new byte[32];
        Arrays.fill(challenge, (byte) 0x5a);
        final long ts = 0x0102030405060708L;
        final byte[] manual = Secp256k1.sha256("fips-auth-v1".getBytes(StandardCharsets.US_ASCII), challenge,
                new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
        assertArrayEquals(manual, AuthChallenge.digest(challenge, ts));
        final byte[] le = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(ts).array();
        assertFalse(Arrays.equals(Secp256k1.sha256("fips-auth-v1".getBytes(StandardCharsets.US_ASCII), challenge, le),
                AuthChallenge.digest(challenge, ts)));
    }

    @Test
    void responsesVerifyAndReturnTheNodeAddr() throws Exception {
        final NodeIdentity id = NodeIdentity.generate();
        final AuthChallenge ch = AuthChallenge.generate();
        // -1 is 2^64-1 as an unsigned timestamp: still signs and verifies.
        for (final long ts : new long[] {0L, 1_700_000_000_123L, -1L}) {
            final AuthChallenge.Response r = id.signChallenge(ch.toBytes(), ts);
            assertEquals(id.nodeAddr(), ch.verify(r));
            assertArrayEquals(id.publicKey(), r.publicKey());
            assertEquals(ts, r.timestamp());
        }
    }

    @Test
    void wrongChallengeTimestampKeyOrSignatureFails() {
        final NodeIdentity id = NodeIdentity.generate();
        final AuthChallenge ch = AuthChallenge.generate();
        final AuthChallenge.Response r = id.signChallenge(ch.toBytes(), 42L);
        assertThrows(SignatureException.class, () -> AuthChallenge.generate().verify(r));
        assertThrows(SignatureException.class,
                () -> ch.verify(new AuthChallenge.Response(r.publicKey(), 43L, r.signature())));
        assertThrows(SignatureException.class,
                () -> ch.verify(new AuthChallenge.Response(NodeIdentity.generate().publicKey(), 42L, r.signature())));
        final byte[] sig = r.signature();
        sig[0] ^= 1;
        assertThrows(SignatureException.class, () -> ch.verify(new AuthChallenge.Response(r.publicKey(), 42L, sig)));
        assertThrows(SignatureException.class,
                () -> ch.verify(new AuthChallenge.Response(new byte[5], 42L, r.signature())));
        assertThrows(IllegalArgumentException.class, () -> AuthChallenge.of(new byte[31]));
    }
}
