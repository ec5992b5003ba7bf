package net.fips.control.identity;

import java.util.Arrays;
import java.util.Objects;

import net.fips.control.crypto.Schnorr;
import net.fips.control.crypto.Secp256k1;
import net.fips.control.identity.IdentityFormatException.Problem;
import net.fips.dataplane.wire.NodeAddr;

/**
 * A remote node's identity: its x-only public key, the compressed key used for Noise, and the derived node_addr
 * and FIPS address. No signing capability. Immutable.
 *
 * <p>A peer known only by npub or hex gets the even-Y lift as its compressed key, as the reference does; one
 * learned from a handshake keeps the real parity ({@link #fromCompressed}). Equality is on the x-only key,
 * which is the identity, so the two views of one peer are equal.
 */
public final class PeerIdentity {
    private final byte[] xOnly;
    private final byte[] compressed;
    private final NodeAddr nodeAddr;
    private final FipsAddress address;

    private PeerIdentity(final byte[] xOnly, final byte[] compressed) {
        this.xOnly = xOnly;
        this.compressed = compressed;
        this.nodeAddr = NodeAddrs.fromPublicKey(xOnly);
        this.address = FipsAddress.fromNodeAddr(nodeAddr);
    }

    /**
     * @param xOnly 32-byte x-only public key (copied)
     * @return the peer, with the even-Y compressed key
     * @throws IdentityFormatException when the key is not 32 bytes or not on the curve
     */
    public static PeerIdentity fromPublicKey(final byte[] xOnly) throws IdentityFormatException {
        Objects.requireNonNull(xOnly, "xOnly");
        if (xOnly.length != 32) {
            throw new IdentityFormatException(Problem.WRONG_LENGTH,
                    "invalid public key: expected 32 bytes, got " + xOnly.length);
        }
        final byte[] full = Secp256k1.compressedFromXOnly(xOnly);
        if (full == null) {
            throw new IdentityFormatException(Problem.INVALID_KEY, "invalid public key: not a point on secp256k1");
        }
        return new PeerIdentity(xOnly.clone(), full);
    }

    /**
     * @param npub the peer's npub
     * @return the peer, with the even-Y compressed key
     * @throws IdentityFormatException when the npub does not decode (see {@link Nip19#decodeNpub})
     */
    public static PeerIdentity fromNpub(final String npub) throws IdentityFormatException {
        return fromPublicKey(Nip19.decodeNpub(npub));
    }

    /**
     * @param hex the x-only key as 64 hex digits
     * @return the peer, with the even-Y compressed key
     * @throws IdentityFormatException when it is not a 32-byte hex key on the curve
     */
    public static PeerIdentity fromHex(final String hex) throws IdentityFormatException {
        return fromPublicKey(Nip19.decodePublicHex(hex));
    }

    /**
     * Parses either form a config file or command line may use: an npub, or otherwise 64 hex digits.
     *
     * @param text npub or hex
     * @return the peer
     * @throws IdentityFormatException when neither form decodes
     */
    public static PeerIdentity parse(final String text) throws IdentityFormatException {
        Objects.requireNonNull(text, "text");
        return text.regionMatches(true, 0, "npub1", 0, 5) ? fromNpub(text) : fromHex(text);
    }

    /**
     * @param compressed 33-byte SEC1 compressed key with its real parity (e.g. from a Noise handshake)
     * @return the peer
     * @throws IdentityFormatException when it is not a valid compressed point
     */
    public static PeerIdentity fromCompressed(final byte[] compressed) throws IdentityFormatException {
        if (!Secp256k1.isValidCompressed(compressed)) {
            throw new IdentityFormatException(Problem.INVALID_KEY,
                    "invalid public key: not a 33-byte compressed secp256k1 point");
        }
        return new PeerIdentity(Arrays.copyOfRange(compressed, 1, 33), compressed.clone());
    }

    /** @return a copy of the 32-byte x-only public key */
    public byte[] publicKey() {
        return xOnly.clone();
    }

    /** @return a copy of the 33-byte compressed key (even Y unless built from a compressed key) */
    public byte[] compressedPublicKey() {
        return compressed.clone();
    }

    /** @return the npub */
    public String npub() {
        return Nip19.encodeNpub(xOnly);
    }

    /** @return {@code npub1} + first 4 + {@code ...} + last 4 data characters, the reference's log form */
    public String shortNpub() {
        final String data = npub().substring(5);
        return "npub1" + data.substring(0, 4) + "..." + data.substring(data.length() - 4);
    }

    /** @return the node_addr */
    public NodeAddr nodeAddr() {
        return nodeAddr;
    }

    /** @return the FIPS IPv6 address */
    public FipsAddress address() {
        return address;
    }

    /**
     * Verifies a signature made with the FIPS rule (BIP-340 over SHA-256 of {@code data}).
     *
     * @param data the signed bytes
     * @param signature 64 bytes
     * @return true only when valid for this peer's key
     */
    public boolean verify(final byte[] data, final byte[] signature) {
        return Schnorr.verifyData(xOnly, data, signature);
    }

    @Override
    public boolean equals(final Object o) {
        return o instanceof PeerIdentity other && Arrays.equals(xOnly, other.xOnly);
    }

    @Override
    public int hashCode() {
        return nodeAddr.hashCode();
    }

    /** @return the npub */
    @Override
    public String toString() {
        return npub();
    }
}
