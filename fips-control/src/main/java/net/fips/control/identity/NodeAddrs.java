package net.fips.control.identity;

import java.util.Arrays;

import net.fips.control.crypto.Secp256k1;
import net.fips.control.identity.IdentityFormatException.Problem;
import net.fips.dataplane.wire.NodeAddr;

/**
 * The identity-side ways of obtaining a {@link NodeAddr}: deriving it from a public key and parsing operator text
 * with a typed error. The value type itself lives in the data plane so that codecs and the control plane share it.
 */
public final class NodeAddrs {
    private NodeAddrs() {
    }

    /**
     * Derives a node_addr. The reference hashes the 32-byte x-only key, not the npub text nor the compressed form.
     *
     * @param xOnly 32-byte x-only public key
     * @return SHA-256(xOnly)[0..16]
     * @throws IllegalArgumentException when {@code xOnly} is not 32 bytes
     */
    public static NodeAddr fromPublicKey(final byte[] xOnly) {
        if (xOnly == null || xOnly.length != 32) {
            throw new IllegalArgumentException("x-only public key must be 32 bytes");
        }
        return NodeAddr.of(Arrays.copyOf(Secp256k1.sha256(xOnly), NodeAddr.SIZE));
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
        if (b.length != NodeAddr.SIZE) {
            throw new IdentityFormatException(Problem.WRONG_LENGTH,
                    "invalid node_addr: expected 16 bytes, got " + b.length);
        }
        return NodeAddr.of(b);
    }
}
