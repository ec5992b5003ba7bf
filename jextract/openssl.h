/* Umbrella header for the `openssl` jextract group: the EVP cipher API of OpenSSL 3 (libcrypto.so.3). */
#include <openssl/evp.h>
