package net.fips.control.conformance;

import static net.fips.control.conformance.WireJson.addr;
import static net.fips.control.conformance.WireJson.coords;
import static net.fips.control.conformance.WireJson.ok;
import static net.fips.control.conformance.WireJson.u64;

import java.nio.file.Path;
import java.util.Arrays;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import net.fips.dataplane.wire.CoordsRequired;
import net.fips.dataplane.wire.FspErrorSignal;
import net.fips.dataplane.wire.FspFlags;
import net.fips.dataplane.wire.FspHeader;
import net.fips.dataplane.wire.FspInnerFlags;
import net.fips.dataplane.wire.FspInnerHeader;
import net.fips.dataplane.wire.FspPrefix;
import net.fips.dataplane.wire.Ipv6Shim;
import net.fips.dataplane.wire.MmpReceiverReport;
import net.fips.dataplane.wire.MmpSenderReport;
import net.fips.dataplane.wire.MtuExceeded;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.dataplane.wire.PathBroken;
import net.fips.dataplane.wire.PathMtuNotification;
import net.fips.dataplane.wire.SessionAck;
import net.fips.dataplane.wire.SessionMsg3;
import net.fips.dataplane.wire.SessionSetup;
import net.fips.testing.Hex;

/**
 * wire_session.json: FSP codecs (handshake carriers, error signals, MMP bodies, flags, header helpers, IPv6 shim).
 * Each vector is decoded from the reference's bytes and compared field by field, then rebuilt and re-encoded
 * byte-exactly.
 */
public final class WireSessionVectors implements VectorFileCheck {
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
                checkOne(type, v, e);
                e.record(tally, KIND, name);
            } catch (final Exception | AssertionError ex) {
                tally.error(KIND, name, ex);
            }
        }
    }

    private static void checkOne(final String type, final JsonNode v, final Tally.Expect e) {
        if (type.startsWith("SessionSetup")) {
            final byte[] enc = Hex.field(v, "encoded_hex");
            final SessionSetup want = new SessionSetup(v.get("flags").asInt(), coords(v, "src_coords_hex"),
                    coords(v, "dest_coords_hex"), hs(v));
            e.equal("decoded", want, ok(SessionSetup.decode(enc, 0, enc.length), "SessionSetup"))
                    .bytes("encoded", enc, want.encode());
        } else if (type.startsWith("SessionAck")) {
            final byte[] enc = Hex.field(v, "encoded_hex");
            final SessionAck want = new SessionAck(0, coords(v, "src_coords_hex"), coords(v, "dest_coords_hex"),
                    hs(v));
            e.equal("decoded", want, ok(SessionAck.decode(enc, 0, enc.length), "SessionAck"))
                    .bytes("encoded", enc, want.encode());
        } else if (type.startsWith("SessionMsg3")) {
            final byte[] enc = Hex.field(v, "encoded_hex");
            final SessionMsg3 want = new SessionMsg3(0, hs(v));
            e.equal("decoded", want, ok(SessionMsg3.decode(enc, 0, enc.length), "SessionMsg3"))
                    .bytes("encoded", enc, want.encode());
        } else if (type.startsWith("CoordsRequired")) {
            errorSignal(v, e, new CoordsRequired(addr(v, "dest_addr_hex"), addr(v, "reporter_hex")));
        } else if (type.startsWith("PathBroken")) {
            errorSignal(v, e, new PathBroken(addr(v, "dest_addr_hex"), addr(v, "reporter_hex"),
                    coords(v, "last_known_coords_hex")));
        } else if (type.startsWith("MtuExceeded")) {
            errorSignal(v, e, new MtuExceeded(addr(v, "dest_addr_hex"), addr(v, "reporter_hex"),
                    v.get("mtu").asInt()));
        } else if (type.startsWith("SessionSenderReport")) {
            final byte[] enc = Hex.field(v, "encoded_body_hex");
            final MmpSenderReport want = WireLinkVectors.sender(WireJson.rustFields(v.get("fields").asText()));
            e.equal("decoded", want, ok(MmpSenderReport.decodeSession(enc, 0, enc.length), "SessionSenderReport"))
                    .bytes("encoded", enc, want.encodeSession());
        } else if (type.startsWith("SessionReceiverReport")) {
            final byte[] enc = Hex.field(v, "encoded_body_hex");
            final MmpReceiverReport want = WireLinkVectors.receiver(WireJson.rustFields(v.get("fields").asText()));
            e.equal("decoded", want, ok(MmpReceiverReport.decodeSession(enc, 0, enc.length),
                    "SessionReceiverReport")).bytes("encoded", enc, want.encodeSession());
        } else if (type.startsWith("PathMtuNotification")) {
            final byte[] enc = Hex.field(v, "encoded_body_hex");
            final PathMtuNotification want = new PathMtuNotification(v.get("path_mtu").asInt());
            e.equal("decoded", want, ok(PathMtuNotification.decode(enc, 0, enc.length), "PathMtuNotification"))
                    .bytes("encoded", enc, want.encode());
        } else if (type.equals("FspFlags")) {
            final FspFlags want = new FspFlags(v.get("coords_present").asBoolean(), v.get("key_epoch").asBoolean(),
                    v.get("unencrypted").asBoolean());
            final int b = Hex.field(v, "byte_hex")[0] & 0xFF;
            e.equal("byte", b, want.toByte()).equal("decoded", want, FspFlags.fromByte(b));
        } else if (type.equals("FspInnerFlags")) {
            final FspInnerFlags want = new FspInnerFlags(v.get("spin_bit").asBoolean());
            final int b = Hex.field(v, "byte_hex")[0] & 0xFF;
            e.equal("byte", b, want.toByte()).equal("decoded", want, FspInnerFlags.fromByte(b));
        } else if (type.equals("build_fsp_header")) {
            fspHeader(v, e);
        } else if (type.equals("build_fsp_handshake_prefix")) {
            final byte[] want = Hex.field(v, "prefix_hex");
            final FspPrefix p = ok(new FspPrefix().wrap(want, 0, want.length), "FspPrefix");
            e.bytes("prefix", want, FspPrefix.handshakePrefix(v.get("phase").asInt(), v.get("payload_len").asInt()))
                    .equal("phase", v.get("phase").asInt(), p.phase()).equal("flags", 0, p.flags())
                    .equal("payload_len", v.get("payload_len").asInt(), p.payloadLen());
        } else if (type.equals("build_fsp_error_prefix")) {
            final byte[] want = Hex.field(v, "prefix_hex");
            final FspPrefix p = ok(new FspPrefix().wrap(want, 0, want.length), "FspPrefix");
            e.bytes("prefix", want, FspPrefix.errorPrefix(v.get("payload_len").asInt()))
                    .that("error signal", p.isErrorSignal())
                    .equal("payload_len", v.get("payload_len").asInt(), p.payloadLen());
        } else if (type.equals("fsp_prepend_inner_header")) {
            final byte[] want = Hex.field(v, "inner_plaintext_hex");
            final byte[] body = Hex.field(v, "payload_hex");
            e.bytes("inner plaintext", want, FspInnerHeader.prepend(v.get("timestamp_ms").asLong(),
                    v.get("msg_type").asInt(), v.get("inner_flags").asInt(), body));
            final FspInnerHeader h = ok(new FspInnerHeader().wrap(want, 0, want.length), "FspInnerHeader");
            e.equal("timestamp", v.get("timestamp_ms").asLong(), h.timestamp())
                    .equal("msg_type", v.get("msg_type").asInt(), h.msgType())
                    .equal("inner_flags", v.get("inner_flags").asInt(), h.innerFlags())
                    .bytes("body", body, Arrays.copyOfRange(want, (int) h.bodyOffset(), want.length));
        } else if (type.startsWith("IPv6 shim")) {
            ipv6Shim(v, e);
        } else {
            e.that("unknown vector type " + type, false);
        }
    }

    private static byte[] hs(final JsonNode v) {
        return WireJson.HEX.parseHex(WireJson.startingWith(v, "handshake_payload_hex").asText());
    }

    private static void errorSignal(final JsonNode v, final Tally.Expect e, final FspErrorSignal want) {
        final byte[] enc = Hex.field(v, "encoded_hex");
        e.equal("decoded", want, ok(FspErrorSignal.decode(enc, 0, enc.length), want.type().name()))
                .bytes("encoded", enc, want.encode());
        final FspPrefix p = ok(new FspPrefix().wrap(enc, 0, enc.length), "FspPrefix");
        e.that("prefix marks an error signal", p.isErrorSignal())
                .equal("payload_len", enc.length - FspPrefix.SIZE, p.payloadLen())
                .that("not an encrypted header", !new FspHeader().wrap(enc, 0, enc.length).isOk());
    }

    private static void fspHeader(final JsonNode v, final Tally.Expect e) {
        final byte[] want = Hex.field(v, "header_hex");
        final long counter = u64(v, "counter");
        final int flags = Hex.field(v, "flags_hex")[0] & 0xFF;
        final int len = v.get("payload_len").asInt();
        e.bytes("header", want, FspHeader.build(counter, flags, len));
        // A header only parses as part of a message of at least 28 bytes (header + tag).
        final byte[] msg = Arrays.copyOf(want, FspHeader.MIN_MESSAGE_SIZE);
        final FspHeader h = ok(new FspHeader().wrap(msg, 0, msg.length), "FspHeader");
        e.equal("counter", counter, h.counter()).equal("flags", flags, h.flags()).equal("payload_len", len,
                h.payloadLen()).that("CP", h.coordsPresent()).that("K", h.keyEpoch());
    }

    private static void ipv6Shim(final JsonNode v, final Tally.Expect e) {
        final byte[] ipv6 = Hex.field(v, "ipv6_packet_hex");
        final byte[] want = Hex.field(v, "compressed_hex");
        e.bytes("compressed", want, ok(Ipv6Shim.compress(ipv6, 0, ipv6.length), "compress"));
        // Decompression rebuilds the addresses from the datagram's source node (only its first 15 bytes appear in
        // the IPv6 address, so the 16th is arbitrary here) and our own address.
        final NodeAddr srcNode = NodeAddr.of(concat(Arrays.copyOfRange(ipv6, 9, 24), new byte[1]));
        e.bytes("source is fd || node_addr[0..15]", Arrays.copyOfRange(ipv6, 8, 24), Ipv6Shim.fipsAddress(srcNode));
        e.bytes("decompressed", ipv6, ok(Ipv6Shim.decompress(want, 0, want.length, srcNode,
                Arrays.copyOfRange(ipv6, 24, 40)), "decompress"));
    }

    private static byte[] concat(final byte[] a, final byte[] b) {
        final byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
