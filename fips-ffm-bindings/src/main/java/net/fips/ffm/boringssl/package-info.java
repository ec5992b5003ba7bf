/**
 * BoringSSL's libcrypto (Debian's {@code android-libboringssl}) through FFM: an availability probe
 * ({@link net.fips.ffm.boringssl.Boringssl}) and an allocation-free, per-thread ChaCha20-Poly1305 engine
 * ({@link net.fips.ffm.boringssl.AeadChaCha20Poly1305}) over the one-call {@code EVP_AEAD} interface generated into
 * {@code net.fips.ffm.boringssl.gen}. BoringSSL exports many of OpenSSL's symbol names; both libraries are opened
 * with per-library lookups, so they live side by side in one process.
 */
package net.fips.ffm.boringssl;
