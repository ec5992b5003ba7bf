package net.fips.control.identity;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

import net.fips.control.crypto.Secp256k1;
import net.fips.control.identity.IdentityFormatException.Problem;

/**
 * A node's 16-byte routing address: the first 16 bytes of SHA-256 of its 32-byte x-only public key (hashing
 * the key, not the npub text or the compressed form). Immutable. Ordered as the reference orders it: unsigned
 * lexicographic bytes, i.e. as a big-endian 128-bit number; every "smaller node_addr wins" rule depends on it.
 */
public final class NodeAddr implements Comparable<NodeAddr> {
    /** Bytes in a node_addr. */
    public static final int LENGTH = 16;

    private static final HexFormat HEX = HexFormat.of();

    private final byte[] bytes;
    private final int hash;

    private NodeAddr(final byte[] bytes) {
        this.bytes = bytes;
        this.hash = Arrays.hashCode(bytes);
    }

    /**
     * @param xOnly 32-byte x-only public key
     * @return SHA-256(xOnly)[0..16]
     */
    public static NodeAddr fromPublicKey(final byte[] xOnly) {
        if (xOnly == null || xOnly.length != 32) {
            throw new IllegalArgumentException("x-only public key must be 32 bytes");
        }
        return new NodeAddr(Arrays.copyOf(Secp256k1.sha256(xOnly), LENGTH));
    }

    /**
     * @param bytes exactly 16 bytes (copied)
     * @return the node_addr with those bytes
     * @throws IllegalArgumentException when {@code bytes} is not 16 bytes long
     */
    public static NodeAddr of(final byte[] bytes) {
        if (bytes == null || bytes.length != LENGTH) {
            throw new IllegalArgumentException("node_addr must be 16 bytes");
        }
        return new NodeAddr(bytes.clone());
    }

    /**
     * @param buf    source
     * @param offset where the 16 bytes start
     * @return the node_addr read from {@code buf[offset..offset+16]}
     */
    public static NodeAddr of(final byte[] buf, final int offset) {
        Objects.checkFromIndexSize(offset, LENGTH, buf.length);
        return new NodeAddr(Arrays.copyOfRange(buf, offset, offset + LENGTH));
    }

    /**
     * Parses the 32-hex-digit text form.
     *
     * @param text 32 hex digits, either case
     * @return the node_addr
     * @throws IdentityFormatException when it is not hex or not 16 bytes
     */
    public static NodeAddr parse(final String text) throws IdentityFormatException {
        final byte[] b = Nip19.parseHex(text, "node_addr");
        if (b.length != LENGTH) {
            throw new IdentityFormatException(Problem.WRONG_LENGTH,
                    "invalid node_addr: expected 16 bytes, got " + b.length);
        }
        return new NodeAddr(b);
    }

    /** @return a copy of the 16 bytes */
    public byte[] toBytes() {
        return bytes.clone();
    }

    /**
     * Writes the 16 bytes into {@code dst} at {@code offset}.
     *
     * @param dst    destination
     * @param offset where to start
     */
    public void copyTo(final byte[] dst, final int offset) {
        System.arraycopy(bytes, 0, dst, offset, LENGTH);
    }

    /**
     * @param i index 0..15
     * @return byte {@code i} as 0..255
     */
    public int byteAt(final int i) {
        return bytes[i] & 0xff;
    }

    /** @return the first 4 bytes in hex followed by {@code "..."}, the reference's short log form */
    public String shortHex() {
        return HEX.formatHex(bytes, 0, 4) + "...";
    }

    /** @return the FIPS IPv6 address derived from this node_addr */
    public FipsAddress toFipsAddress() {
        return FipsAddress.fromNodeAddr(this);
    }

    @Override
    public int compareTo(final NodeAddr o) {
        return Arrays.compareUnsigned(bytes, o.bytes);
    }

    @Override
    public boolean equals(final Object o) {
        return o instanceof NodeAddr other && Arrays.equals(bytes, other.bytes);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    /** @return the 32 lowercase hex digits */
    @Override
    public String toString() {
        return HEX.formatHex(bytes);
    }
}
