package net.fips.control.discovery;

import net.fips.control.crypto.Schnorr;

/** Checks a LookupResponse proof: a BIP-340 signature over SHA-256 of the proof bytes. */
@FunctionalInterface
public interface ProofVerifier {
    /** The FIPS rule, {@link Schnorr#verifyData}. */
    ProofVerifier SCHNORR = Schnorr::verifyData;

    /**
     * @param xOnlyPub   the target's 32-byte x-only key
     * @param proofBytes {@code LookupResponse.proofBytes}
     * @param signature  the 64-byte proof
     * @return true only for a valid signature
     */
    boolean verify(byte[] xOnlyPub, byte[] proofBytes, byte[] signature);
}
