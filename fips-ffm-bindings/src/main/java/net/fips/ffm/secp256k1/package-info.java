/**
 * libsecp256k1 (libsecp256k1.so.1) through FFM: an availability probe and byte-array operations
 * ({@link net.fips.ffm.secp256k1.Secp256k1Lib}) over the calls generated into {@code net.fips.ffm.secp256k1.gen}:
 * public keys, constant-time ECDH and BIP-340 Schnorr signatures.
 */
package net.fips.ffm.secp256k1;
