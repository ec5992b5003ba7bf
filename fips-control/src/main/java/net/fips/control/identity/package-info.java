/**
 * FIPS node identity: secp256k1 keys as NIP-19 npub/nsec (bech32), the 16-byte node_addr and {@code fd00::/8}
 * address derived from the x-only key, signing with the FIPS rule (BIP-340 over SHA-256 of the data), the
 * reference's auth challenge, and the {@code fips.key}/{@code fips.pub} files.
 */
package net.fips.control.identity;
