package net.fips.control.tree;

/** Verifies a peer's declaration signature (BIP-340 over SHA-256 of the signed bytes). */
@FunctionalInterface
public interface SignatureVerifier {
    /**
     * @param xOnlyPublicKey the peer's 32-byte x-only static key, from the link handshake
     * @param signedBytes    the 48 declaration bytes
     * @param signature      64 bytes
     * @return true only for a valid signature; never throws for bad input
     */
    boolean verify(byte[] xOnlyPublicKey, byte[] signedBytes, byte[] signature);
}
