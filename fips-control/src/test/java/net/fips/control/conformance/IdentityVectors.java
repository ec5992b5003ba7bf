package net.fips.control.conformance;

import java.nio.file.Path;
import java.security.SignatureException;
import java.util.Arrays;
import java.util.HexFormat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import net.fips.control.crypto.Schnorr;
import net.fips.control.crypto.Secp256k1;
import net.fips.control.identity.AuthChallenge;
import net.fips.control.identity.IdentityFormatException;
import net.fips.control.identity.Nip19;
import net.fips.control.identity.NodeAddrs;
import net.fips.control.identity.NodeIdentity;
import net.fips.control.identity.PeerIdentity;

/**
 * identity.json: key derivation, npub/nsec, node_addr, FIPS address and IPv6 text; npub decoding (valid and
 * invalid); FIPS-rule signatures; the auth challenge. Random-aux reference signatures are checked by
 * verification, their {@code deterministic_*} companions byte for byte.
 */
public final class IdentityVectors implements VectorFileCheck {
    private static final HexFormat HEX = HexFormat.of();
    private static final byte[] ZERO_AUX = new byte[32];

    @Override
    public void check(final Path file, final Tally tally) throws Exception {
        final JsonNode root = new ObjectMapper().readTree(file.toFile());
        int i = 0;
        for (final JsonNode v : root.get("vectors")) {
            final String name = "#" + i++ + " " + v.get("label").asText();
            try {
                identity(v).record(tally, "identity_vectors", name);
            } catch (final Exception e) {
                tally.error("identity_vectors", name, e);
            }
        }
        for (final JsonNode v : root.get("npub_decode_vectors")) {
            final String name = v.get("label").asText();
            try {
                npubDecode(v).record(tally, "npub_decode", name);
            } catch (final Exception e) {
                tally.error("npub_decode", name, e);
            }
        }
        for (final JsonNode v : root.get("invalid_npub_decode_vectors")) {
            final String name = v.get("description").asText();
            try {
                invalidNpub(v).record(tally, "invalid_npub", name);
            } catch (final Exception e) {
                tally.error("invalid_npub", name, e);
            }
        }
        i = 0;
        for (final JsonNode v : root.get("signature_vectors")) {
            final String name = "#" + i++ + " data " + v.get("data_hex").asText();
            try {
                signature(v).record(tally, "signature", name);
            } catch (final Exception e) {
                tally.error("signature", name, e);
            }
        }
        final JsonNode auth = root.get("auth_challenge_vector");
        try {
            authChallenge(auth).record(tally, "auth_challenge", "auth_challenge_vector");
        } catch (final Exception e) {
            tally.error("auth_challenge", "auth_challenge_vector", e);
        }
    }

    private static Tally.Expect identity(final JsonNode v) throws IdentityFormatException {
        final Tally.Expect x = new Tally.Expect();
        final String skHex = v.get("secret_key_hex").asText();
        final NodeIdentity id = NodeIdentity.fromSecret(HEX.parseHex(skHex));
        x.hex("pubkey_xonly", v.get("pubkey_xonly_hex").asText(), id.publicKey())
                .hex("pubkey_compressed", v.get("pubkey_compressed_hex").asText(), id.compressedPublicKey())
                .equal("pubkey_parity", v.get("pubkey_parity").asText(), id.hasOddY() ? "odd" : "even")
                .equal("npub", v.get("npub").asText(), id.npub())
                .equal("nsec", v.get("nsec").asText(), id.nsec())
                .hex("node_addr", v.get("node_addr_hex").asText(), id.nodeAddr().toBytes())
                .equal("node_addr text", v.get("node_addr_hex").asText(), id.nodeAddr().toString())
                .equal("node_addr_short", v.get("node_addr_short_hex").asText(), id.nodeAddr().shortHex())
                .hex("fips_address", v.get("fips_address_hex").asText(), id.address().toBytes())
                .hex("fips_address as Inet6Address", v.get("fips_address_hex").asText(),
                        id.address().toInet6Address().getAddress())
                .equal("ipv6", v.get("ipv6").asText(), id.address().toString());
        // Every way in must land on the same key: the nsec, the hex (both cases) and the npub for the public side.
        x.hex("nsec decodes", skHex, Nip19.decodeNsec(v.get("nsec").asText()))
                .hex("parse(nsec)", skHex, NodeIdentity.parse(v.get("nsec").asText()).secretKey())
                .hex("parse(HEX)", skHex, NodeIdentity.parse(skHex.toUpperCase()).secretKey());
        final PeerIdentity peer = PeerIdentity.fromNpub(v.get("npub").asText());
        x.hex("peer_from_npub_pubkey_full", v.get("peer_from_npub_pubkey_full_hex").asText(),
                peer.compressedPublicKey())
                .equal("peer node_addr", id.nodeAddr(), peer.nodeAddr())
                .equal("peer address", id.address(), peer.address())
                .equal("peer == own view", id.toPeer(), peer);
        return x;
    }

    private static Tally.Expect npubDecode(final JsonNode v) throws IdentityFormatException {
        final PeerIdentity peer = PeerIdentity.fromNpub(v.get("npub").asText());
        return new Tally.Expect()
                .hex("pubkey_xonly", v.get("pubkey_xonly_hex").asText(), Nip19.decodeNpub(v.get("npub").asText()))
                .hex("peer pubkey_xonly", v.get("pubkey_xonly_hex").asText(), peer.publicKey())
                .hex("pubkey_full_even_parity", v.get("pubkey_full_even_parity_hex").asText(),
                        peer.compressedPublicKey())
                .hex("node_addr", v.get("node_addr_hex").asText(), peer.nodeAddr().toBytes())
                .hex("fips_address", v.get("fips_address_hex").asText(), peer.address().toBytes())
                .equal("ipv6", v.get("ipv6").asText(), peer.address().toString())
                .equal("re-encoded npub", v.get("npub").asText(), peer.npub());
    }

    private static Tally.Expect invalidNpub(final JsonNode v) {
        final boolean expectOk = v.get("decode_npub_ok").asBoolean();
        boolean ok;
        String why = "";
        try {
            Nip19.decodeNpub(v.get("input").asText());
            ok = true;
        } catch (final IdentityFormatException e) {
            ok = false;
            why = e.getMessage();
        }
        return new Tally.Expect().equal("decode_npub_ok (" + why + ")", expectOk, ok)
                .that("error message names npub", ok || why.contains("npub"));
    }

    private static Tally.Expect signature(final JsonNode v) throws IdentityFormatException {
        final byte[] sk = HEX.parseHex(v.get("signer_secret_key_hex").asText());
        final byte[] pub = HEX.parseHex(v.get("signer_pubkey_xonly_hex").asText());
        final byte[] data = HEX.parseHex(v.get("data_hex").asText());
        final byte[] digest = HEX.parseHex(v.get("signed_message_sha256_of_data_hex").asText());
        final byte[] refSig = HEX.parseHex(v.get("signature_from_Identity_sign_random_aux_hex").asText());
        final byte[] detAux = HEX.parseHex(v.get("deterministic_bip340_aux_rand_hex").asText());
        final byte[] tampered = HEX.parseHex(v.get("tampered_signature_hex").asText());
        final NodeIdentity id = NodeIdentity.fromSecret(sk);
        final PeerIdentity peer = PeerIdentity.fromPublicKey(pub);
        final byte[] dataPlus00 = Arrays.copyOf(data, data.length + 1);
        final byte[] ownSig = id.sign(data);
        return new Tally.Expect()
                .hex("signer_pubkey_xonly", v.get("signer_pubkey_xonly_hex").asText(), id.publicKey())
                .bytes("signed message = SHA-256(data)", digest, Secp256k1.sha256(data))
                .equal("reference random-aux signature verifies",
                        v.get("signature_from_Identity_sign_verifies").asBoolean(), peer.verify(data, refSig))
                .equal("reference signature verifies as BIP-340 over the digest",
                        v.get("signature_from_Identity_sign_verifies").asBoolean(),
                        Schnorr.verify(pub, digest, refSig))
                .hex("deterministic aux zero", v.get("deterministic_bip340_aux_rand_zero_hex").asText(),
                        id.sign(data, ZERO_AUX))
                .hex("deterministic with that aux", v.get("deterministic_bip340_with_that_aux_hex").asText(),
                        Schnorr.sign(sk, digest, detAux))
                .equal("tampered signature verifies", v.get("tampered_signature_verifies").asBoolean(),
                        peer.verify(data, tampered))
                .equal("signature over data||00 verifies", v.get("signature_over_data_plus_00_verifies").asBoolean(),
                        peer.verify(dataPlus00, refSig) || peer.verify(dataPlus00, id.sign(data, ZERO_AUX)))
                .that("own random-aux signature verifies", peer.verify(data, ownSig));
    }

    private static Tally.Expect authChallenge(final JsonNode v) throws IdentityFormatException {
        final NodeIdentity id = NodeIdentity.fromSecret(HEX.parseHex(v.get("secret_key_hex").asText()));
        final byte[] challenge = HEX.parseHex(v.get("challenge_hex").asText());
        final long timestamp = v.get("timestamp").asLong();
        final AuthChallenge ch = AuthChallenge.of(challenge);
        final byte[] pub = HEX.parseHex(v.get("pubkey_xonly_hex").asText());
        final Tally.Expect x = new Tally.Expect()
                .hex("pubkey_xonly", v.get("pubkey_xonly_hex").asText(), id.publicKey())
                .hex("digest", v.get("digest_hex").asText(), AuthChallenge.digest(challenge, timestamp))
                .hex("deterministic signature, aux zero", v.get("deterministic_signature_aux_rand_zero_hex").asText(),
                        id.signChallenge(challenge, timestamp, ZERO_AUX).signature());
        final AuthChallenge.Response reference = new AuthChallenge.Response(pub, timestamp,
                HEX.parseHex(v.get("signature_from_sign_challenge_random_aux_hex").asText()));
        try {
            x.equal("verify(reference response) -> node_addr",
                    NodeAddrs.parse(v.get("reference_verify_returns_node_addr_hex").asText()), ch.verify(reference));
            x.equal("verify(own response) -> node_addr", id.nodeAddr(),
                    ch.verify(id.signChallenge(challenge, timestamp)));
        } catch (final SignatureException e) {
            x.that("response verifies: " + e.getMessage(), false);
        }
        boolean staleAccepted;
        try {
            ch.verify(new AuthChallenge.Response(pub, timestamp + 1, reference.signature()));
            staleAccepted = true;
        } catch (final SignatureException e) {
            staleAccepted = false;
        }
        return x.that("a different timestamp must not verify", !staleAccepted);
    }
}
