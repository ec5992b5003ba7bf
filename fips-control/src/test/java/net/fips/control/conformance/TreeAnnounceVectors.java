package net.fips.control.conformance;

import static net.fips.control.conformance.WireJson.addr;
import static net.fips.control.conformance.WireJson.ok;
import static net.fips.control.conformance.WireJson.u64;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import net.fips.control.crypto.Schnorr;
import net.fips.control.crypto.Secp256k1;
import net.fips.control.identity.NodeAddrs;
import net.fips.dataplane.wire.CoordEntry;
import net.fips.dataplane.wire.TreeAnnounce;
import net.fips.testing.Hex;

/**
 * tree_announce.json: each announce is decoded from the reference's bytes and compared field by field, its signed
 * declaration rebuilt (signing bytes and digest), its deterministic signature (aux = 32 zero bytes) reproduced from
 * the signer's secret with the project's {@link Schnorr} and the whole message re-encoded byte-exactly. The
 * random-aux copy must verify and re-encode, the copy with a flipped last signature byte must decode and must not
 * verify, and the announce must pass the receiver's semantic rules.
 */
public final class TreeAnnounceVectors implements VectorFileCheck {
    private static final String KIND = "announces";

    @Override
    public void check(final Path file, final Tally tally) throws Exception {
        final JsonNode root = new ObjectMapper().readTree(file.toFile());
        int i = 0;
        for (final JsonNode v : root.get("vectors")) {
            final String name = "#" + i++ + " " + v.get("description").asText();
            try {
                final Tally.Expect e = new Tally.Expect();
                announce(v, e);
                e.record(tally, KIND, name);
            } catch (final Exception | AssertionError ex) {
                tally.error(KIND, name, ex);
            }
        }
    }

    private static void announce(final JsonNode v, final Tally.Expect e) {
        final byte[] secret = Hex.field(v, "signer_secret_key_hex");
        final byte[] pub = Hex.field(v, "signer_pubkey_xonly_hex");
        e.bytes("signer x-only pubkey from secret", pub, Secp256k1.xOnly(secret))
                .hex("node_addr from pubkey", v.get("node_addr_hex").asText(),
                        NodeAddrs.fromPublicKey(pub).toBytes());

        final long sequence = u64(v, "sequence");
        final long timestamp = u64(v, "timestamp");
        final List<CoordEntry> ancestry = new ArrayList<>();
        for (final JsonNode a : v.get("ancestry")) {
            ancestry.add(new CoordEntry(addr(a, "node_addr_hex"), u64(a, "sequence"), u64(a, "timestamp")));
        }

        // The signed declaration, from the vector's fields alone.
        final byte[] signing = TreeAnnounce.signingBytes(addr(v, "node_addr_hex"), addr(v, "parent_id_hex"),
                sequence, timestamp);
        final byte[] digest = Secp256k1.sha256(signing);
        e.hex("signing_bytes", v.get("signing_bytes_hex").asText(), signing)
                .hex("signed_digest", v.get("signed_digest_sha256_hex").asText(), digest);

        // Deterministic signature: reproducible by any BIP-340 signer, so the whole message is.
        final byte[] zeroAux = new byte[Schnorr.AUX_LENGTH];
        final byte[] detSig = Schnorr.sign(secret, digest, zeroAux);
        e.hex("deterministic signature", v.get("deterministic_aux_zero_signature_hex").asText(), detSig)
                .bytes("signData over signing bytes", detSig, Schnorr.signData(secret, signing, zeroAux));
        final TreeAnnounce built = new TreeAnnounce(sequence, timestamp, addr(v, "parent_id_hex"), ancestry, detSig);
        final byte[] det = Hex.field(v, "encoded_with_deterministic_signature_hex");
        e.bytes("encoded (deterministic)", det, built.encode())
                .equal("encoded_len", v.get("encoded_len").asInt(), built.encodedSize());

        final TreeAnnounce got = ok(TreeAnnounce.decode(det, 0, det.length), "TreeAnnounce (deterministic)");
        e.equal("decoded", built, got)
                .equal("sequence", sequence, got.sequence())
                .equal("timestamp", timestamp, got.timestamp())
                .equal("node_addr", addr(v, "node_addr_hex"), got.nodeAddr())
                .equal("parent", addr(v, "parent_id_hex"), got.parent())
                .equal("ancestry", ancestry, got.ancestry())
                .equal("is_root", v.get("is_root").asBoolean(), got.isRoot())
                .equal("ancestry_depth", v.get("ancestry_depth").asInt(), got.depth())
                .equal("root is the last ancestry entry", ancestry.getLast().nodeAddr(), got.root())
                .bytes("decoded signing bytes", signing, got.signingBytes())
                .bytes("decoded signing digest", digest, got.signingDigest())
                .bytes("re-encoded (deterministic)", det, got.encode())
                .that("deterministic signature verifies", Schnorr.verify(pub, got.signingDigest(), got.signature()))
                .equal("semantic violation", Optional.empty(), got.semanticViolation());

        // Random-aux signature: one valid output of the reference, compared by verification only.
        final byte[] rnd = Hex.field(v, "encoded_with_random_aux_signature_hex");
        final TreeAnnounce r = ok(TreeAnnounce.decode(rnd, 0, rnd.length), "TreeAnnounce (random aux)");
        e.equal("encoded_len (random aux)", v.get("encoded_len").asInt(), rnd.length)
                .bytes("random-aux unsigned part", Arrays.copyOf(det, det.length - Schnorr.SIGNATURE_LENGTH),
                        Arrays.copyOf(rnd, rnd.length - Schnorr.SIGNATURE_LENGTH))
                .bytes("re-encoded (random aux)", rnd, r.encode())
                .equal("random_aux_signature_verifies", v.get("random_aux_signature_verifies").asBoolean(),
                        Schnorr.verify(pub, r.signingDigest(), r.signature()))
                .equal("semantic violation (random aux)", Optional.empty(), r.semanticViolation());

        // Tampered: still a well-formed message, but the signature must no longer verify.
        final byte[] bad = Hex.field(v, "tampered_last_signature_byte_encoded_hex");
        final var tr = TreeAnnounce.decode(bad, 0, bad.length);
        e.equal("tampered_decodes_ok", v.get("tampered_decodes_ok").asBoolean(), tr.isOk());
        if (tr.isOk()) {
            final TreeAnnounce t = tr.valueOrNull();
            e.equal("tampered_verifies", v.get("tampered_verifies").asBoolean(),
                            Schnorr.verify(pub, t.signingDigest(), t.signature()))
                    .bytes("tampered re-encoded", bad, t.encode())
                    .bytes("tampered signing bytes unchanged", signing, t.signingBytes());
        }
    }
}
