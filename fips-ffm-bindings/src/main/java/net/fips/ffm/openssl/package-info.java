/**
 * OpenSSL libcrypto (libcrypto.so.3) through FFM: an availability probe ({@link net.fips.ffm.openssl.Libcrypto})
 * and an allocation-free, per-thread ChaCha20-Poly1305 engine ({@link net.fips.ffm.openssl.ChaCha20Poly1305})
 * over the EVP calls generated into {@code net.fips.ffm.openssl.gen}.
 */
package net.fips.ffm.openssl;
