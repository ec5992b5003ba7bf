package net.fips.control.crypto;

/**
 * Where the control plane's secp256k1 operations run: libsecp256k1 through FFM, or BouncyCastle's curve code. Both
 * produce identical bytes for every operation (the conformance suite runs each vector through both); they differ in
 * speed only. {@link Secp256k1Backends} picks one; {@link Secp256k1} and {@link Schnorr} are the callers' API.
 *
 * <p>Inputs are validated by the callers ({@link Secp256k1}, {@link Schnorr}) where their contracts say so; every
 * implementation still refuses a bad secret or key with an exception or a {@code false}, never a wrong result.
 * Implementations are stateless and safe for concurrent use.
 */
public interface Secp256k1Backend {
    /** @return a short name for logs and benchmark parameters: {@code "libsecp256k1"} or {@code "bouncycastle"} */
    String name();

    /**
     * @param sk 32-byte secret key, 1 <= k < n
     * @return the 33-byte SEC1 compressed public key (real parity)
     * @throws IllegalArgumentException when {@code sk} is not a valid secret
     */
    byte[] compressed(byte[] sk);

    /**
     * @param p33 candidate key
     * @return whether it is a 33-byte SEC1 compressed key (prefix 02/03) whose X is on the curve
     */
    boolean isValidCompressed(byte[] p33);

    /**
     * @param x candidate BIP-340 key
     * @return whether it is 32 bytes, below p, and the X of a curve point
     */
    boolean isValidXOnly(byte[] x);

    /**
     * The FIPS Noise DH: SHA-256 of the 32-byte X of {@code sk}·{@code peer} (the parity of the result is discarded).
     *
     * @param sk   32-byte secret key, 1 <= k < n
     * @param peer 33-byte SEC1 compressed public key
     * @return the 32-byte DH output
     * @throws IllegalArgumentException when {@code sk} or {@code peer} is invalid
     */
    byte[] ecdh(byte[] sk, byte[] peer);

    /**
     * BIP-340 signing, self-verified before the signature is returned.
     *
     * @param sk  32-byte secret key, 1 <= k < n
     * @param msg the message (any length, not null)
     * @param aux 32 bytes of aux randomness
     * @return the 64-byte signature
     * @throws IllegalArgumentException when {@code sk} is not a valid secret
     * @throws IllegalStateException    when signing or its self-verification fails
     */
    byte[] sign(byte[] sk, byte[] msg, byte[] aux);

    /**
     * BIP-340 verification; malformed inputs give {@code false}.
     *
     * @param xOnlyPub 32-byte x-only public key
     * @param msg      the signed message (any length)
     * @param sig      the 64-byte signature
     * @return true only for a valid signature
     */
    boolean verify(byte[] xOnlyPub, byte[] msg, byte[] sig);
}
