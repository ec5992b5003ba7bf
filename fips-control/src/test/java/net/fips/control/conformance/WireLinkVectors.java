package net.fips.control.conformance;

import static net.fips.control.conformance.WireJson.addr;
import static net.fips.control.conformance.WireJson.coords;
import static net.fips.control.conformance.WireJson.ok;
import static net.fips.control.conformance.WireJson.u64;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import net.fips.control.crypto.Schnorr;
import net.fips.control.crypto.Secp256k1;
import net.fips.dataplane.wire.Disconnect;
import net.fips.dataplane.wire.Heartbeat;
import net.fips.dataplane.wire.LookupRequest;
import net.fips.dataplane.wire.LookupResponse;
import net.fips.dataplane.wire.MmpReceiverReport;
import net.fips.dataplane.wire.MmpSenderReport;
import net.fips.dataplane.wire.SessionDatagram;
import net.fips.testing.Hex;

/**
 * wire_link.json: link-layer message codecs. Each vector is decoded from the reference's bytes, its fields compared,
 * then rebuilt from the vector's fields and re-encoded byte-exactly.
 */
public final class WireLinkVectors implements VectorFileCheck {
    private static final String KIND = "vectors";

    @Override
    public void check(final Path file, final Tally tally) throws Exception {
        final JsonNode root = new ObjectMapper().readTree(file.toFile());
        int i = 0;
        for (final JsonNode v : root.get("vectors")) {
            final String type = v.get("type").asText();
            final String name = "#" + i++ + " " + type;
            try {
                final Tally.Expect e = new Tally.Expect();
                if (type.equals("SessionDatagram")) {
                    sessionDatagram(v, e);
                } else if (type.equals("Disconnect")) {
                    disconnect(v, e);
                } else if (type.equals("Heartbeat")) {
                    final byte[] enc = Hex.field(v, "encoded_hex");
                    e.that("Heartbeat decodes", Heartbeat.decode(enc, 0, enc.length).isOk());
                    e.bytes("encoded", enc, Heartbeat.INSTANCE.encode());
                } else if (type.equals("LookupRequest")) {
                    lookupRequest(v, e);
                } else if (type.equals("LookupResponse")) {
                    lookupResponse(v, e);
                } else if (type.startsWith("SenderReport")) {
                    senderReport(v, e);
                } else if (type.startsWith("ReceiverReport")) {
                    receiverReport(v, e);
                } else {
                    e.that("unknown vector type " + type, false);
                }
                e.record(tally, KIND, name);
            } catch (final Exception | AssertionError ex) {
                tally.error(KIND, name, ex);
            }
        }
    }

    private static void sessionDatagram(final JsonNode v, final Tally.Expect e) {
        final byte[] enc = Hex.field(v, "encoded_hex");
        final SessionDatagram d = ok(SessionDatagram.decode(enc, 0, enc.length), "SessionDatagram");
        final SessionDatagram want = new SessionDatagram(v.get("ttl").asInt(), v.get("path_mtu").asInt(),
                addr(v, "src_addr_hex"), addr(v, "dest_addr_hex"), Hex.field(v, "payload_hex"));
        e.equal("decoded", want, d).bytes("encoded", enc, want.encode());
    }

    private static void disconnect(final JsonNode v, final Tally.Expect e) {
        if (v.has("encoded_hex")) {
            final byte[] enc = Hex.field(v, "encoded_hex");
            final Disconnect want = new Disconnect(Disconnect.Reason.valueOf(WireJson.upperSnake(
                    v.get("reason").asText())));
            e.equal("decoded", want, ok(Disconnect.decode(enc, 0, enc.length), "Disconnect"))
                    .bytes("encoded", enc, want.encode());
        } else {
            final byte[] body = Hex.field(v, "payload_after_msg_type_hex");
            final byte[] enc = new byte[body.length + 1];
            enc[0] = 0x50;
            System.arraycopy(body, 0, enc, 1, body.length);
            final Disconnect d = ok(Disconnect.decode(enc, 0, enc.length), "Disconnect");
            final Disconnect.Reason want = Disconnect.Reason.valueOf(WireJson.upperSnake(
                    v.get("decoded_reason").asText()));
            e.equal("reason", want, d.reason()).bytes("re-encoded", new byte[] {0x50, (byte) want.code()},
                    d.encode());
        }
    }

    private static void lookupRequest(final JsonNode v, final Tally.Expect e) {
        final byte[] enc = Hex.field(v, "encoded_hex");
        final LookupRequest want = new LookupRequest(u64(v, "request_id"), addr(v, "target_hex"),
                addr(v, "origin_hex"), v.get("ttl").asInt(), v.get("min_mtu").asInt(),
                coords(v, "origin_coords_hex"));
        e.equal("decoded", want, ok(LookupRequest.decode(enc, 0, enc.length), "LookupRequest"))
                .bytes("encoded", enc, want.encode());
    }

    private static void lookupResponse(final JsonNode v, final Tally.Expect e) {
        final long requestId = u64(v, "request_id");
        final byte[] proofBytes = LookupResponse.proofBytes(requestId, addr(v, "target_hex"),
                coords(v, "target_coords_hex"));
        e.hex("proof_bytes", v.get("proof_bytes_hex").asText(), proofBytes)
                .hex("proof_digest", v.get("proof_digest_sha256_hex").asText(), Secp256k1.sha256(proofBytes));

        // Deterministic proof: the whole message is reproducible.
        final byte[] det = Hex.field(v, "encoded_deterministic_hex");
        final LookupResponse want = new LookupResponse(requestId, addr(v, "target_hex"), v.get("path_mtu").asInt(),
                coords(v, "target_coords_hex"), Hex.field(v, "deterministic_aux_zero_proof_hex"));
        final LookupResponse got = ok(LookupResponse.decode(det, 0, det.length), "LookupResponse");
        e.equal("decoded", want, got).bytes("encoded", det, want.encode())
                .bytes("decoded proof_bytes", proofBytes, got.proofBytes());

        // Random-aux proof: same fields, the proof compared by verification.
        final byte[] rnd = Hex.field(v, "encoded_random_aux_hex");
        final LookupResponse r = ok(LookupResponse.decode(rnd, 0, rnd.length), "LookupResponse random aux");
        e.bytes("random-aux prefix", Arrays.copyOf(det, det.length - 64), Arrays.copyOf(rnd, rnd.length - 64))
                .bytes("random-aux re-encoded", rnd, r.encode())
                .equal("random_aux_proof_verifies", v.get("random_aux_proof_verifies").asBoolean(),
                        Schnorr.verify(Hex.field(v, "target_pubkey_xonly_hex"), Secp256k1.sha256(r.proofBytes()),
                                r.proof()))
                .that("deterministic proof verifies", Schnorr.verify(Hex.field(v, "target_pubkey_xonly_hex"),
                        Secp256k1.sha256(proofBytes), got.proof()));

        // path_mtu is not covered by the proof: a transit rewrite keeps the proof bytes.
        final byte[] m65535 = Hex.field(v, "encoded_path_mtu_65535_random_aux_hex");
        final LookupResponse full = ok(LookupResponse.decode(m65535, 0, m65535.length), "LookupResponse mtu 65535");
        e.equal("path_mtu", 65535, full.pathMtu()).bytes("proof_bytes with mtu 65535", proofBytes, full.proofBytes())
                .bytes("mtu rewritten to 1400", rnd, full.withPathMtu(v.get("path_mtu").asInt()).encode());
    }

    private static void senderReport(final JsonNode v, final Tally.Expect e) {
        final byte[] enc = Hex.field(v, "encoded_hex");
        final MmpSenderReport want = sender(WireJson.rustFields(v.get("fields").asText()));
        e.equal("decoded", want, ok(MmpSenderReport.decodeLink(enc, 0, enc.length), "SenderReport"))
                .bytes("encoded", enc, want.encodeLink());
    }

    private static void receiverReport(final JsonNode v, final Tally.Expect e) {
        final byte[] enc = Hex.field(v, "encoded_hex");
        final MmpReceiverReport want = receiver(WireJson.rustFields(v.get("fields").asText()));
        e.equal("decoded", want, ok(MmpReceiverReport.decodeLink(enc, 0, enc.length), "ReceiverReport"))
                .bytes("encoded", enc, want.encodeLink());
    }

    static MmpSenderReport sender(final Map<String, Long> f) {
        return new MmpSenderReport(f.get("interval_start_counter"), f.get("interval_end_counter"),
                f.get("interval_start_timestamp"), f.get("interval_end_timestamp"), f.get("interval_bytes_sent"),
                f.get("cumulative_packets_sent"), f.get("cumulative_bytes_sent"));
    }

    static MmpReceiverReport receiver(final Map<String, Long> f) {
        return new MmpReceiverReport(f.get("highest_counter"), f.get("cumulative_packets_recv"),
                f.get("cumulative_bytes_recv"), f.get("timestamp_echo"), f.get("dwell_time").intValue(),
                f.get("max_burst_loss").intValue(), f.get("mean_burst_loss").intValue(), f.get("jitter"),
                f.get("ecn_ce_count"), f.get("owd_trend").intValue(), f.get("burst_loss_count"),
                f.get("cumulative_reorder_count"), f.get("interval_packets_recv"), f.get("interval_bytes_recv"));
    }
}
