/* Umbrella header for the `secp256k1` jextract group: libsecp256k1 (libsecp256k1.so.1) with its ECDH, extrakeys
 * and Schnorr signature modules. <secp256k1.h> itself is not named here: this file has the same name and would
 * include itself; each module header pulls it in with #include "secp256k1.h", resolved next to that header. */
#include <secp256k1_ecdh.h>
#include <secp256k1_extrakeys.h>
#include <secp256k1_schnorrsig.h>
