package net.fips.control.conformance;

import static net.fips.control.conformance.WireJson.hex;
import static net.fips.control.conformance.WireJson.ok;
import static net.fips.control.conformance.WireJson.u64;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;

import net.fips.control.noise.HandshakeState.Pattern;
import net.fips.dataplane.crypto.AeadCipher;
import net.fips.dataplane.crypto.JdkAeadCipher;
import net.fips.dataplane.wire.Disconnect;
import net.fips.dataplane.wire.FmpEstablishedHeader;
import net.fips.dataplane.wire.FmpInnerHeader;
import net.fips.dataplane.wire.FmpMsg1;
import net.fips.dataplane.wire.FmpMsg2;
import net.fips.dataplane.wire.FmpPrefix;
import net.fips.dataplane.wire.Heartbeat;
import net.fips.dataplane.wire.LinkMessageType;
import net.fips.dataplane.wire.TreeAnnounce;

/**
 * fmp_frame.json: complete link-layer packets. The two handshake packets are rebuilt from the noise_ik.json handshake
 * the file names, run on both sides with its fixed keys, ephemerals and epochs, plus the file's sender indices, then
 * decoded back. Each established frame is built (header = AAD, inner header, link message), sealed in place in an
 * off-heap buffer with the given key, compared byte-exactly, then parsed and opened in place with the receiving
 * side's key from the same handshake, and its link message decoded and re-encoded.
 */
public final class FmpFrameVectors implements VectorFileCheck {
    private static final String HANDSHAKE = "handshake_packets";
    private static final String FRAMES = "established_frames";

    @Override
    public void check(final Path file, final Tally tally) throws Exception {
        final JsonNode root = new ObjectMapper().readTree(file.toFile());
        final JsonNode ik = NoiseVectorSupport.referencedVector(file, root.get("handshake_source").asText());
        NoiseVectorSupport.Driven hs = null;
        Exception hsFailure = null;
        try {
            hs = NoiseVectorSupport.drive(ik, Pattern.IK);
        } catch (final Exception ex) {
            hsFailure = ex;
        }
        final int initiatorIdx = (int) u64(root, "initiator_sender_idx");
        final int responderIdx = (int) u64(root, "responder_sender_idx");

        for (final String which : new String[] {"msg1", "msg2"}) {
            try {
                final Tally.Expect e = new Tally.Expect();
                if (hs == null) {
                    e.that("handshake failed: " + hsFailure, false);
                } else if (which.equals("msg1")) {
                    msg1(root, ik, hs, initiatorIdx, e);
                } else {
                    msg2(root, ik, hs, initiatorIdx, responderIdx, e);
                }
                e.record(tally, HANDSHAKE, which);
            } catch (final Exception | AssertionError ex) {
                tally.error(HANDSHAKE, which, ex);
            }
        }

        try (AeadCipher cipher = new JdkAeadCipher()) {
            int i = 0;
            for (final JsonNode f : root.get(FRAMES)) {
                final String name = "#" + i++ + " " + f.get("description").asText();
                try {
                    final Tally.Expect e = new Tally.Expect();
                    if (hs == null) {
                        e.that("handshake failed: " + hsFailure, false);
                    } else {
                        frame(f, hs, initiatorIdx, responderIdx, cipher, e);
                    }
                    e.record(tally, FRAMES, name);
                } catch (final Exception | AssertionError ex) {
                    tally.error(FRAMES, name, ex);
                }
            }
        }
    }

    private static void msg1(final JsonNode root, final JsonNode ik, final NoiseVectorSupport.Driven hs,
                             final int initiatorIdx, final Tally.Expect e) {
        final byte[] wire = hex(root, "msg1_wire_hex");
        e.hex("noise msg1 (handshake run)", ik.get("msg1_hex").asText(), hs.msg1())
                .bytes("msg1 wire", wire, new FmpMsg1(initiatorIdx, hs.msg1()).encode());
        final FmpMsg1 m = ok(FmpMsg1.decode(wire, 0, wire.length), "FmpMsg1");
        e.equal("msg1 sender_idx", Integer.toUnsignedLong(initiatorIdx), Integer.toUnsignedLong(m.senderIdx()))
                .bytes("msg1 noise payload", hs.msg1(), m.noise())
                .bytes("msg1 re-encoded", wire, m.encode());
        prefix(wire, FmpPrefix.PHASE_MSG1, e);
    }

    private static void msg2(final JsonNode root, final JsonNode ik, final NoiseVectorSupport.Driven hs,
                             final int initiatorIdx, final int responderIdx, final Tally.Expect e) {
        final byte[] wire = hex(root, "msg2_wire_hex");
        e.hex("noise msg2 (handshake run)", ik.get("msg2_hex").asText(), hs.msg2())
                .bytes("msg2 wire", wire, new FmpMsg2(responderIdx, initiatorIdx, hs.msg2()).encode());
        final FmpMsg2 m = ok(FmpMsg2.decode(wire, 0, wire.length), "FmpMsg2");
        e.equal("msg2 sender_idx", Integer.toUnsignedLong(responderIdx), Integer.toUnsignedLong(m.senderIdx()))
                .equal("msg2 receiver_idx", Integer.toUnsignedLong(initiatorIdx),
                        Integer.toUnsignedLong(m.receiverIdx()))
                .bytes("msg2 noise payload", hs.msg2(), m.noise())
                .bytes("msg2 re-encoded", wire, m.encode());
        prefix(wire, FmpPrefix.PHASE_MSG2, e);
        // The transport keys the completed handshake yields, on both sides, are the file's.
        final String k1 = root.get("transport_key_initiator_to_responder_hex").asText();
        final String k2 = root.get("transport_key_responder_to_initiator_hex").asText();
        e.hex("initiator send key", k1, hs.initiator().sendKey()).hex("responder recv key", k1,
                        hs.responder().recvKey())
                .hex("responder send key", k2, hs.responder().sendKey())
                .hex("initiator recv key", k2, hs.initiator().recvKey());
    }

    /** payload_len of a handshake packet counts everything after the 4-byte prefix. */
    private static void prefix(final byte[] wire, final int phase, final Tally.Expect e) {
        final FmpPrefix p = ok(new FmpPrefix().wrap(wire, 0, wire.length), "FmpPrefix");
        e.equal("phase", phase, p.phase()).equal("flags", 0, p.flags())
                .equal("payload_len", wire.length - FmpPrefix.SIZE, p.payloadLen());
    }

    private static void frame(final JsonNode f, final NoiseVectorSupport.Driven hs, final int initiatorIdx,
                              final int responderIdx, final AeadCipher cipher, final Tally.Expect e) {
        final int receiverIdx = (int) u64(f, "receiver_idx");
        final long counter = u64(f, "counter");
        final int flags = Integer.parseInt(f.get("flags_hex").asText(), 16);
        final long timestamp = u64(f, "timestamp_ms");
        final byte[] link = hex(f, "link_message_hex");
        final byte[] key = hex(f, "sender_key_hex");
        final byte[] want = hex(f, "frame_hex");

        // Which side sends follows from whose index the frame is addressed to.
        final byte[] senderKey;
        final byte[] receiverKey;
        if (receiverIdx == responderIdx) {
            senderKey = hs.initiator().sendKey();
            receiverKey = hs.responder().recvKey();
        } else if (receiverIdx == initiatorIdx) {
            senderKey = hs.responder().sendKey();
            receiverKey = hs.initiator().recvKey();
        } else {
            e.that("receiver_idx " + Integer.toUnsignedString(receiverIdx) + " is neither side's index", false);
            return;
        }
        e.bytes("sender_key is the sending side's transport key", senderKey, key);

        // Build and seal.
        final byte[] plaintext = FmpInnerHeader.prepend(timestamp, link);
        final byte[] header = FmpEstablishedHeader.build(flags, plaintext.length, receiverIdx, counter);
        e.hex("inner plaintext", f.get("inner_plaintext_hex").asText(), plaintext)
                .hex("header (AAD)", f.get("header_aad_hex").asText(), header);
        final byte[] sealed = InPlaceAead.seal(cipher, key, counter, header, FmpEstablishedHeader.SIZE, plaintext);
        e.bytes("frame", want, sealed).equal("frame_len", f.get("frame_len").asInt(), sealed.length);

        // Parse and open the reference's bytes, in place, as the receiver.
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment seg = InPlaceAead.offHeap(arena, want);
            final FmpEstablishedHeader h = ok(new FmpEstablishedHeader().wrap(seg, 0, seg.byteSize()), "header");
            e.equal("flags", flags, h.flags())
                    .equal("receiver_idx", Integer.toUnsignedLong(receiverIdx),
                            Integer.toUnsignedLong(h.receiverIdx()))
                    .equal("counter", counter, h.counter())
                    .equal("payload_len", plaintext.length, h.payloadLen())
                    .that("payload_len matches the ciphertext", h.payloadLenConsistent())
                    .equal("K flag", (flags & FmpEstablishedHeader.FLAG_KEY_EPOCH) != 0, h.keyEpoch())
                    .equal("CE flag", (flags & FmpEstablishedHeader.FLAG_CE) != 0, h.congestionExperienced())
                    .equal("SP flag", (flags & FmpEstablishedHeader.FLAG_SPIN) != 0, h.spin());
            e.that("tampered header must not open", !opensWithFlippedHeader(cipher, arena, receiverKey, counter, want));

            final int n = InPlaceAead.open(cipher, arena, receiverKey, h.counter(), seg, 0,
                    FmpEstablishedHeader.SIZE, h.ciphertextOffset(), (int) h.ciphertextLength());
            if (n == AeadCipher.AUTH_FAILED) {
                e.that("frame did not open with the receiver's key", false);
                return;
            }
            e.equal("opened length", h.payloadLen(), n).hex("opened plaintext",
                    f.get("inner_plaintext_hex").asText(), InPlaceAead.bytes(seg, h.ciphertextOffset(), n));
            final FmpInnerHeader in = ok(new FmpInnerHeader().wrap(seg, h.ciphertextOffset(), n), "inner header");
            e.equal("timestamp_ms", timestamp, in.timestamp())
                    .equal("msg_type", Byte.toUnsignedInt(link[0]), in.msgType())
                    .bytes("link message", link, InPlaceAead.bytes(seg, in.messageOffset(), in.messageLength()));
            linkMessage(f.get("description").asText(), seg, in.messageOffset(), in.messageLength(), link, e);
        }
    }

    /** Decodes the opened link message with its codec, in place, and re-encodes it. */
    private static void linkMessage(final String description, final MemorySegment seg, final long off,
                                    final long len, final byte[] link, final Tally.Expect e) {
        final LinkMessageType type = LinkMessageType.fromCode(Byte.toUnsignedInt(seg.get(ValueLayout.JAVA_BYTE,
                off)));
        final byte[] again;
        final String codec;
        if (type == LinkMessageType.HEARTBEAT) {
            again = ok(Heartbeat.decode(seg, off, len), "Heartbeat").encode();
            codec = "Heartbeat";
        } else if (type == LinkMessageType.TREE_ANNOUNCE) {
            again = ok(TreeAnnounce.decode(seg, off, len), "TreeAnnounce").encode();
            codec = "TreeAnnounce";
        } else if (type == LinkMessageType.DISCONNECT) {
            again = ok(Disconnect.decode(seg, off, len), "Disconnect").encode();
            codec = "Disconnect";
        } else {
            e.that("no check for link message type " + type, false);
            return;
        }
        e.bytes(codec + " re-encoded", link, again).that("description names " + codec, description.contains(codec));
    }

    /** Opens a copy of the frame whose flags byte is flipped: the AEAD must refuse it, the header being the AAD. */
    private static boolean opensWithFlippedHeader(final AeadCipher cipher, final Arena arena, final byte[] key,
                                                  final long counter, final byte[] frame) {
        final byte[] copy = frame.clone();
        copy[FmpEstablishedHeader.FLAGS_OFFSET] ^= (byte) 0x80;
        final MemorySegment seg = InPlaceAead.offHeap(arena, copy);
        return InPlaceAead.open(cipher, arena, key, counter, seg, 0, FmpEstablishedHeader.SIZE,
                FmpEstablishedHeader.SIZE, copy.length - FmpEstablishedHeader.SIZE) != AeadCipher.AUTH_FAILED;
    }
}
