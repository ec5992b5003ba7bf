package net.fips.control.identity;

import java.security.SecureRandom;
import java.util.Objects;

import net.fips.control.crypto.Schnorr;
import net.fips.control.crypto.Secp256k1;
import net.fips.control.identity.IdentityFormatException.Problem;
import net.fips.dataplane.wire.NodeAddr;

/**
 * This node's identity: a secp256k1 secret key with its public forms, node_addr and FIPS address, able to sign.
 * {@link #toString()} never shows the secret.
 */
public final class NodeIdentity {
    private static final SecureRandom RANDOM = new SecureRandom();

    private final byte[] secret;
    private final byte[] compressed;
    private final PeerIdentity peer;

    private NodeIdentity(final byte[] secret) {
        this.secret = secret;
        this.compressed = Secp256k1.compressed(secret);
        try {
            this.peer = PeerIdentity.fromCompressed(compressed);
        } catch (final IdentityFormatException e) {
            throw new IllegalStateException("k*G is always a valid point", e);
        }
    }

    /** @return a fresh identity from 32 bytes of the system CSPRNG */
    public static NodeIdentity generate() {
        return generate(RANDOM);
    }

    /**
     * @param random source of the secret
     * @return a fresh identity; 32 random bytes are used as the scalar, redrawn in the ~2^-128 case they are not
     *     in [1, n-1]
     */
    public static NodeIdentity generate(final SecureRandom random) {
        return new NodeIdentity(Secp256k1.randomSecret(random));
    }

    /**
     * @param secret 32-byte scalar (copied)
     * @return the identity
     * @throws IdentityFormatException when it is not 32 bytes or not in [1, n-1]
     */
    public static NodeIdentity fromSecret(final byte[] secret) throws IdentityFormatException {
        Objects.requireNonNull(secret, "secret");
        if (secret.length != 32) {
            throw new IdentityFormatException(Problem.WRONG_LENGTH,
                    "invalid secret key: expected 32 bytes, got " + secret.length);
        }
        if (!Secp256k1.isValidSecret(secret)) {
            throw new IdentityFormatException(Problem.INVALID_KEY, "invalid secret key: scalar must be in [1, n-1]");
        }
        return new NodeIdentity(secret.clone());
    }

    /**
     * @param nsec bech32 nsec
     * @return the identity
     * @throws IdentityFormatException when it does not decode (see {@link Nip19#decodeNsec})
     */
    public static NodeIdentity fromNsec(final String nsec) throws IdentityFormatException {
        return new NodeIdentity(Nip19.decodeNsec(nsec));
    }

    /**
     * Reads a secret the way the reference reads config, {@code fips.key} and CLI values: nsec when the text
     * starts with {@code nsec1}, otherwise 64 hex digits.
     *
     * @param text nsec or hex
     * @return the identity
     * @throws IdentityFormatException when neither form decodes
     */
    public static NodeIdentity parse(final String text) throws IdentityFormatException {
        return new NodeIdentity(Nip19.decodeSecret(text));
    }

    /** @return a copy of the 32-byte secret key; wipe it when done */
    public byte[] secretKey() {
        return secret.clone();
    }

    /** @return the nsec string of the secret */
    public String nsec() {
        return Nip19.encodeNsec(secret);
    }

    /** @return a copy of the 32-byte x-only public key */
    public byte[] publicKey() {
        return peer.publicKey();
    }

    /** @return a copy of the 33-byte compressed public key with its real parity */
    public byte[] compressedPublicKey() {
        return compressed.clone();
    }

    /** @return true when the public point has an odd Y (compressed prefix 03) */
    public boolean hasOddY() {
        return compressed[0] == 0x03;
    }

    /** @return the npub */
    public String npub() {
        return peer.npub();
    }

    /** @return the node_addr */
    public NodeAddr nodeAddr() {
        return peer.nodeAddr();
    }

    /** @return the FIPS IPv6 address */
    public FipsAddress address() {
        return peer.address();
    }

    /** @return this identity as peers see it (real parity) */
    public PeerIdentity toPeer() {
        return peer;
    }

    /**
     * Signs with the FIPS rule: BIP-340 over SHA-256({@code data}), fresh random aux.
     *
     * @param data bytes to sign
     * @return the 64-byte signature
     */
    public byte[] sign(final byte[] data) {
        return Schnorr.signData(secret, data);
    }

    /**
     * Signs with the FIPS rule and the given aux (deterministic; for tests and known-answer vectors).
     *
     * @param data bytes to sign
     * @param aux  32 bytes
     * @return the 64-byte signature
     */
    public byte[] sign(final byte[] data, final byte[] aux) {
        return Schnorr.signData(secret, data, aux);
    }

    /**
     * Answers an authentication challenge (see {@link AuthChallenge}) with fresh random aux.
     *
     * @param challenge 32-byte challenge
     * @param timestamp the responder's timestamp (unsigned 64-bit, signed big-endian)
     * @return the response
     */
    public AuthChallenge.Response signChallenge(final byte[] challenge, final long timestamp) {
        final byte[] aux = new byte[Schnorr.AUX_LENGTH];
        RANDOM.nextBytes(aux);
        return signChallenge(challenge, timestamp, aux);
    }

    /**
     * Answers an authentication challenge with the given aux (deterministic).
     *
     * @param challenge 32-byte challenge
     * @param timestamp the timestamp
     * @param aux       32 bytes
     * @return the response
     */
    public AuthChallenge.Response signChallenge(final byte[] challenge, final long timestamp, final byte[] aux) {
        final byte[] digest = AuthChallenge.digest(challenge, timestamp);
        return new AuthChallenge.Response(publicKey(), timestamp, Schnorr.sign(secret, digest, aux));
    }

    /** @return the npub and node_addr, never the secret */
    @Override
    public String toString() {
        return "NodeIdentity[" + npub() + ", node_addr " + nodeAddr() + "]";
    }
}
