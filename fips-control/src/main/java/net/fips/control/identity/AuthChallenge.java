package net.fips.control.identity;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.security.SignatureException;
import java.util.Objects;

import net.fips.control.crypto.Schnorr;
import net.fips.control.crypto.Secp256k1;
import net.fips.dataplane.wire.NodeAddr;

/**
 * The reference's challenge-response authentication (a library API that its daemon never sends): the responder
 * signs SHA-256("fips-auth-v1" || challenge(32) || timestamp as u64 <b>big-endian</b>) with BIP-340 (the digest is
 * the BIP-340 message; no further hashing), and the challenger learns the responder's node_addr. Note the
 * big-endian timestamp: every other FIPS integer is little-endian.
 */
public final class AuthChallenge {
    /** Bytes in a challenge. */
    public static final int LENGTH = 32;
    private static final byte[] DOMAIN = "fips-auth-v1".getBytes(StandardCharsets.US_ASCII);
    private static final SecureRandom RANDOM = new SecureRandom();

    private final byte[] challenge;

    /**
     * A signed answer to a challenge.
     *
     * @param publicKey 32-byte x-only key of the responder
     * @param timestamp the signed timestamp (unsigned 64-bit)
     * @param signature 64-byte BIP-340 signature over {@link #digest}
     */
    public record Response(byte[] publicKey, long timestamp, byte[] signature) {
        /** Copies the arrays so the record cannot be changed through them. */
        public Response {
            publicKey = publicKey.clone();
            signature = signature.clone();
        }

        @Override
        public byte[] publicKey() {
            return publicKey.clone();
        }

        @Override
        public byte[] signature() {
            return signature.clone();
        }
    }

    private AuthChallenge(final byte[] challenge) {
        this.challenge = challenge;
    }

    /** @return a fresh random challenge */
    public static AuthChallenge generate() {
        final byte[] b = new byte[LENGTH];
        RANDOM.nextBytes(b);
        return new AuthChallenge(b);
    }

    /**
     * @param challenge 32 bytes (copied)
     * @return the challenge
     */
    public static AuthChallenge of(final byte[] challenge) {
        if (challenge == null || challenge.length != LENGTH) {
            throw new IllegalArgumentException("challenge must be 32 bytes");
        }
        return new AuthChallenge(challenge.clone());
    }

    /** @return a copy of the challenge bytes */
    public byte[] toBytes() {
        return challenge.clone();
    }

    /**
     * @param challenge 32 bytes
     * @param timestamp unsigned 64-bit timestamp
     * @return SHA-256("fips-auth-v1" || challenge || timestamp u64 BE)
     */
    public static byte[] digest(final byte[] challenge, final long timestamp) {
        if (challenge == null || challenge.length != LENGTH) {
            throw new IllegalArgumentException("challenge must be 32 bytes");
        }
        final byte[] ts = ByteBuffer.allocate(8).order(ByteOrder.BIG_ENDIAN).putLong(timestamp).array();
        return Secp256k1.sha256(DOMAIN, challenge, ts);
    }

    /**
     * Checks a response to this challenge.
     *
     * @param response the response
     * @return the responder's node_addr
     * @throws SignatureException when the signature does not verify for the response's key and timestamp
     */
    public NodeAddr verify(final Response response) throws SignatureException {
        Objects.requireNonNull(response, "response");
        if (!Schnorr.verify(response.publicKey, digest(challenge, response.timestamp), response.signature)) {
            throw new SignatureException("auth challenge signature verification failed");
        }
        return NodeAddrs.fromPublicKey(response.publicKey);
    }
}
