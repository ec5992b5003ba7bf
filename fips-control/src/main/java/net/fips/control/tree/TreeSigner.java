package net.fips.control.tree;

/** Signs this node's 48-byte declaration ({@code TreeAnnounce.signingBytes}) with the FIPS rule. */
@FunctionalInterface
public interface TreeSigner {
    /**
     * @param signingBytes {@code node_addr ‖ parent ‖ sequence LE ‖ timestamp LE}
     * @return the 64-byte BIP-340 signature over SHA-256 of {@code signingBytes}
     */
    byte[] sign(byte[] signingBytes);
}
