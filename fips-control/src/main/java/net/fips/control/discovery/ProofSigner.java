package net.fips.control.discovery;

import net.fips.control.identity.NodeIdentity;

/** Signs a LookupResponse proof with our identity using the FIPS rule (BIP-340 over SHA-256 of the bytes). */
@FunctionalInterface
public interface ProofSigner {
    /** @param proofBytes {@code LookupResponse.proofBytes} @return the 64-byte signature */
    byte[] sign(byte[] proofBytes);

    /** @param identity our identity @return a signer over it (fresh random aux per signature) */
    static ProofSigner of(final NodeIdentity identity) {
        return identity::sign;
    }
}
