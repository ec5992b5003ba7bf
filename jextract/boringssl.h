/* Umbrella header for the `boringssl` jextract group: BoringSSL's one-call EVP_AEAD interface (Debian's
 * android-libboringssl, libcrypto.so.0 under /usr/lib/<triplet>/android; headers under /usr/include/android). */
#include <openssl/aead.h>
