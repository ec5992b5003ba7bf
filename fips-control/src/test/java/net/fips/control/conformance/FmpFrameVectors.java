package net.fips.control.conformance;

import static net.fips.control.conformance.WireJson.ok;
import static net.fips.control.conformance.WireJson.u64;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.io.IOException;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import net.fips.control.noise.HandshakeState.Pattern;
import net.fips.dataplane.crypto.AeadCipher;
import net.fips.dataplane.engine.DataPlaneCounter;
import net.fips.dataplane.wire.Disconnect;
import net.fips.dataplane.wire.FmpEstablishedHeader;
import net.fips.dataplane.wire.FmpInnerHeader;
import net.fips.dataplane.wire.FmpMsg1;
import net.fips.dataplane.wire.FmpMsg2;
import net.fips.dataplane.wire.FmpPrefix;
import net.fips.dataplane.wire.Heartbeat;
import net.fips.dataplane.wire.LinkMessageType;
import net.fips.dataplane.wire.TreeAnnounce;
import net.fips.testing.Hex;

/**
 * fmp_frame.json: complete link-layer packets. The two handshake packets are rebuilt from the noise_ik.json handshake
 * the file names, run on both sides with its fixed keys, ephemerals and epochs, plus the file's sender indices, then
 * decoded back.
 *
 * <p>Established frames go through the production data path ({@link DataPlanePath}: a real data plane's worker),
 * once with each AEAD backend, on two data planes, one per end of the handshake (a link with the responder's index
 * and keys, and one with the initiator's). The reference's frame is sent to the receiving end's data plane, which
 * must open it on the link its receiver index names and hand up exactly the vector's timestamp and link message (a
 * copy with a flipped header byte, sent first, must fail authentication); then the sending end is made to send the
 * vector's link message at the vector's timestamp, the frames of each direction in file order so the worker's own
 * send counter reaches the vector's, and the bytes on the wire must be the vector's frame. The data plane writes
 * only its session's K bit into the flags, so for a vector with other flag bits (SP, CE) or K = 1 under the initial
 * keys, which no data plane state produces, the comparison leaves out the flags byte and the tag (the AAD only
 * affects the tag; frames whose flags it does write check the AAD in full). The header and inner-header codecs are
 * checked against the vector's fields besides, and the link message is decoded and re-encoded with its codec.
 */
public final class FmpFrameVectors implements VectorFileCheck {
    private static final String HANDSHAKE = "handshake_packets";
    private static final String FRAMES = "established_frames";
    /** The data plane's link holding the responder's end (its index, its keys). */
    private static final long AS_RESPONDER = 1;
    /** The data plane's link holding the initiator's end. */
    private static final long AS_INITIATOR = 2;

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

        final List<JsonNode> frames = new ArrayList<>();
        root.get(FRAMES).forEach(frames::add);
        final List<Tally.Expect> expects = new ArrayList<>();
        for (final JsonNode f : frames) {
            final Tally.Expect e = new Tally.Expect();
            expects.add(e);
            if (hs == null) {
                e.that("handshake failed: " + hsFailure, false);
                continue;
            }
            try {
                codecs(f, e);
            } catch (final Exception | AssertionError ex) {
                e.that("codecs threw " + ex, false);
            }
        }
        if (hs != null) {
            for (final String backend : DataPlanePath.backends()) {
                try (DataPlanePath responder = new DataPlanePath(backend);
                     DataPlanePath initiator = new DataPlanePath(backend)) {
                    responder.link(AS_RESPONDER, responderIdx, initiatorIdx, hs.responder().sendKey(),
                            hs.responder().recvKey());
                    initiator.link(AS_INITIATOR, initiatorIdx, responderIdx, hs.initiator().sendKey(),
                            hs.initiator().recvKey());
                    for (int i = 0; i < frames.size(); i++) {
                        try {
                            dataPath(frames.get(i), responder, initiator, hs, initiatorIdx, responderIdx,
                                    expects.get(i));
                        } catch (final Exception | AssertionError ex) {
                            expects.get(i).that(backend + ": data path threw " + ex, false);
                        }
                    }
                } catch (final Exception | AssertionError ex) {
                    for (final Tally.Expect e : expects) {
                        e.that(backend + " data plane: " + ex, false);
                    }
                }
            }
        }
        for (int i = 0; i < frames.size(); i++) {
            expects.get(i).record(tally, FRAMES, "#" + i + " " + frames.get(i).get("description").asText());
        }
    }

    private static void msg1(final JsonNode root, final JsonNode ik, final NoiseVectorSupport.Driven hs,
                             final int initiatorIdx, final Tally.Expect e) {
        final byte[] wire = Hex.field(root, "msg1_wire_hex");
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
        final byte[] wire = Hex.field(root, "msg2_wire_hex");
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

    /** The vector's fields against the header and inner-header codecs (no crypto). */
    private static void codecs(final JsonNode f, final Tally.Expect e) {
        final int receiverIdx = (int) u64(f, "receiver_idx");
        final long counter = u64(f, "counter");
        final int flags = Integer.parseInt(f.get("flags_hex").asText(), 16);
        final long timestamp = u64(f, "timestamp_ms");
        final byte[] link = Hex.field(f, "link_message_hex");
        final byte[] want = Hex.field(f, "frame_hex");
        final byte[] plaintext = FmpInnerHeader.prepend(timestamp, link);
        final byte[] header = FmpEstablishedHeader.build(flags, plaintext.length, receiverIdx, counter);
        e.hex("inner plaintext", f.get("inner_plaintext_hex").asText(), plaintext)
                .hex("header (AAD)", f.get("header_aad_hex").asText(), header)
                .bytes("frame starts with the header", header, Arrays.copyOf(want, FmpEstablishedHeader.SIZE))
                .equal("frame_len", f.get("frame_len").asInt(), want.length)
                .equal("frame_len = header + plaintext + tag", FmpEstablishedHeader.SIZE + plaintext.length
                        + AeadCipher.TAG_BYTES, want.length);
        final FmpEstablishedHeader h = ok(new FmpEstablishedHeader().wrap(want, 0, want.length), "header");
        e.equal("flags", flags, h.flags())
                .equal("receiver_idx", Integer.toUnsignedLong(receiverIdx), Integer.toUnsignedLong(h.receiverIdx()))
                .equal("counter", counter, h.counter())
                .equal("payload_len", plaintext.length, h.payloadLen())
                .that("payload_len matches the ciphertext", h.payloadLenConsistent())
                .equal("K flag", (flags & FmpEstablishedHeader.FLAG_KEY_EPOCH) != 0, h.keyEpoch())
                .equal("CE flag", (flags & FmpEstablishedHeader.FLAG_CE) != 0, h.congestionExperienced())
                .equal("SP flag", (flags & FmpEstablishedHeader.FLAG_SPIN) != 0, h.spin());
        final FmpInnerHeader in = ok(new FmpInnerHeader().wrap(plaintext, 0, plaintext.length), "inner header");
        e.equal("timestamp_ms", timestamp, in.timestamp()).equal("msg_type", Byte.toUnsignedInt(link[0]),
                in.msgType());
    }

    /** One frame through the data plane's worker: opened as the receiver, then sealed as the sender. */
    private static void dataPath(final JsonNode f, final DataPlanePath responder, final DataPlanePath initiator,
                                 final NoiseVectorSupport.Driven hs, final int initiatorIdx, final int responderIdx,
                                 final Tally.Expect e) throws IOException {
        final String b = responder.backend() + ": ";
        final int receiverIdx = (int) u64(f, "receiver_idx");
        final long counter = u64(f, "counter");
        final int flags = Integer.parseInt(f.get("flags_hex").asText(), 16);
        final long timestamp = u64(f, "timestamp_ms");
        final byte[] link = Hex.field(f, "link_message_hex");
        final byte[] want = Hex.field(f, "frame_hex");

        // Which side sends follows from whose index the frame is addressed to.
        final long opener;
        final long sealer;
        final DataPlanePath path;
        final DataPlanePath sending;
        final byte[] senderKey;
        if (receiverIdx == responderIdx) {
            opener = AS_RESPONDER;
            sealer = AS_INITIATOR;
            path = responder;
            sending = initiator;
            senderKey = hs.initiator().sendKey();
        } else if (receiverIdx == initiatorIdx) {
            opener = AS_INITIATOR;
            sealer = AS_RESPONDER;
            path = initiator;
            sending = responder;
            senderKey = hs.responder().sendKey();
        } else {
            e.that("receiver_idx " + Integer.toUnsignedString(receiverIdx) + " is neither side's index", false);
            return;
        }
        e.bytes("sender_key is the sending side's transport key", senderKey, Hex.field(f, "sender_key_hex"));

        // Receive: a tampered header must not authenticate; the reference's frame opens to the vector's message.
        final long authFailures = path.counter(DataPlaneCounter.DROP_AUTH_FAILED);
        final byte[] tampered = want.clone();
        tampered[FmpEstablishedHeader.FLAGS_OFFSET] ^= (byte) 0x80;
        e.that(b + "a frame with a tampered header was handed up", path.inject(tampered) == null)
                .equal(b + "tampered header fails authentication", authFailures + 1,
                        path.counter(DataPlaneCounter.DROP_AUTH_FAILED));
        final DataPlanePath.Received got = path.inject(want);
        if (got == null) {
            e.that(b + "the data plane did not open the frame: " + path.drops(), false);
        } else {
            e.equal(b + "opened on the link of receiver_idx", opener, got.linkId())
                    .that(b + "handed up as a link message event", !got.datagram())
                    .equal(b + "opened timestamp_ms", timestamp, got.timestampMs())
                    .bytes(b + "opened link message", link, got.message())
                    .hex(b + "opened plaintext", f.get("inner_plaintext_hex").asText(),
                            FmpInnerHeader.prepend(got.timestampMs(), got.message()));
            final MemorySegment msg = MemorySegment.ofArray(got.message());
            linkMessage(f.get("description").asText(), msg, 0, msg.byteSize(), link, e);
        }

        // Send: the worker frames and seals the vector's link message at the vector's timestamp.
        final byte[] wire = sending.sendLinkMessage(sealer, timestamp, link);
        // Both links are on their first session (K = 0), so the data plane writes flags 0x00.
        if (flags == 0) {
            e.bytes(b + "frame sealed by the data plane", want, wire);
        } else {
            e.equal(b + "flags the data plane writes (K of its current session)", 0,
                    wire.length > 1 ? wire[FmpEstablishedHeader.FLAGS_OFFSET] & 0xFF : -1)
                    .bytes(b + "frame sealed by the data plane, flags byte and tag aside", maskFlagsAndTag(want),
                            maskFlagsAndTag(wire));
        }
    }

    /** A copy with the flags byte and the 16-byte tag zeroed: what does not depend on the flags. */
    private static byte[] maskFlagsAndTag(final byte[] frame) {
        final byte[] copy = frame.clone();
        if (copy.length >= FmpEstablishedHeader.SIZE + AeadCipher.TAG_BYTES) {
            copy[FmpEstablishedHeader.FLAGS_OFFSET] = 0;
            Arrays.fill(copy, copy.length - AeadCipher.TAG_BYTES, copy.length, (byte) 0);
        }
        return copy;
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
}
