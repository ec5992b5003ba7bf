package net.fips.control.conformance;

import static net.fips.control.conformance.WireJson.addr;
import static net.fips.control.conformance.WireJson.coords;
import static net.fips.control.conformance.WireJson.ok;
import static net.fips.control.conformance.WireJson.u64;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.io.IOException;
import java.lang.foreign.ValueLayout;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import net.fips.control.identity.NodeAddrs;
import net.fips.control.noise.HandshakeState.Pattern;
import net.fips.control.noise.TransportSession;
import net.fips.dataplane.crypto.AeadCipher;
import net.fips.dataplane.crypto.AeadCiphers;
import net.fips.dataplane.wire.CoordsRequired;
import net.fips.dataplane.wire.CoordsWarmup;
import net.fips.dataplane.wire.DataPacket;
import net.fips.dataplane.wire.FmpEstablishedHeader;
import net.fips.dataplane.wire.FmpInnerHeader;
import net.fips.dataplane.wire.FspCpCoords;
import net.fips.dataplane.wire.FspErrorSignal;
import net.fips.dataplane.wire.FspFlags;
import net.fips.dataplane.wire.FspHeader;
import net.fips.dataplane.wire.FspInnerHeader;
import net.fips.dataplane.wire.Ipv6Shim;
import net.fips.dataplane.wire.LinkMessageType;
import net.fips.dataplane.wire.MmpSenderReport;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.dataplane.wire.PortHeader;
import net.fips.dataplane.wire.SessionDatagram;
import net.fips.dataplane.wire.SessionDatagramHeader;
import net.fips.dataplane.wire.WireError;
import net.fips.testing.Hex;

/**
 * fsp_message.json: each FSP message is built inward-out (inner header and body, 12-byte header = AAD, cleartext CP
 * coordinates, sealed in place with the XK key), wrapped in its SessionDatagram and then in the next hop's FMP frame
 * sealed with the IK key, every layer compared byte-exactly. The reference's frame is then taken apart outward-in,
 * as a receiving node does: open the FMP frame, parse the SessionDatagram, the FSP header and coordinates, open the
 * FSP message with the session key, parse the inner header and decode the body. The keys come from running the
 * noise_xk.json and noise_ik.json handshakes the file names, which also pins the datagram's addresses to the
 * session's identities. Everything is checked once per AEAD backend (libcrypto, BoringSSL where installed, JDK):
 * <ul>
 *   <li>the FMP hop goes through the production data path ({@link DataPlanePath}): the sending node's data plane
 *       is given the SessionDatagram as a local sender would ({@code sendDatagram}) and its worker's frame on the
 *       wire must be the vector's (its own counter reaches the vector's, the messages being sent in file order);
 *       the receiving node's data plane is sent the reference's frame and must hand exactly the SessionDatagram
 *       to its delivery hook;</li>
 *   <li>the FSP layer has no data-plane path yet (end-to-end sessions are not built), so it is sealed and opened
 *       in place in one off-heap buffer with the production {@link AeadCipher} of the backend, the FIPS nonce
 *       ({@link AeadCipher#fipsNonce}) and the production header codecs ({@link FspHeader}, {@link FspCpCoords},
 *       {@link FspInnerHeader}), and also with the control plane's {@link TransportSession} (sender counter from
 *       0, receiver replay window), the session object the FSP layer is to use.</li>
 * </ul>
 * The plaintext CoordsRequired example is decoded and re-encoded, must name the session's destination, and the
 * encrypted-header parser must refuse it.
 */
public final class FspMessageVectors implements VectorFileCheck {
    private static final String MESSAGES = "fsp_messages_fully_encapsulated";
    private static final String PLAINTEXT = "plaintext_error_example";
    // fqn: java.util.regex.Pattern, beside the Noise Pattern
    private static final java.util.regex.Pattern PORTS = java.util.regex.Pattern.compile("ports (\\d+)->(\\d+)");

    /** The two handshakes under the stack: the end-to-end session and the first hop's link. */
    private record Sessions(NoiseVectorSupport.Driven fsp, NoiseVectorSupport.Driven fmp) {
    }

    /** The first hop as two data planes: the sender's (IK initiator's end) and the receiver's (IK responder's). */
    private record Hop(DataPlanePath sender, DataPlanePath receiver, int receiverIdx) {
    }

    /** Link ids of the hop in the two data planes. */
    private static final long HOP_AT_SENDER = 1;
    private static final long HOP_AT_RECEIVER = 2;
    /**
     * The IK initiator's index. The file gives only the receiver's (every frame goes initiator to responder), so
     * this is any other value: it never appears on the wire here.
     */
    private static final int INITIATOR_IDX = 0x11223344;

    /** Installs the hop's link in both data planes, with the IK session's keys and the file's receiver index. */
    private static Hop hop(final JsonNode root, final JsonNode first, final Sessions s, final DataPlanePath sender,
                           final DataPlanePath receiver) throws IOException {
        final int receiverIdx = (int) u64(first.get("fmp_hop"), "receiver_idx");
        sender.link(HOP_AT_SENDER, INITIATOR_IDX, receiverIdx, s.fmp().initiator().sendKey(),
                s.fmp().initiator().recvKey());
        receiver.link(HOP_AT_RECEIVER, receiverIdx, INITIATOR_IDX, s.fmp().responder().sendKey(),
                s.fmp().responder().recvKey());
        return new Hop(sender, receiver, receiverIdx);
    }

    @Override
    public void check(final Path file, final Tally tally) throws Exception {
        final JsonNode root = new ObjectMapper().readTree(file.toFile());
        Sessions s = null;
        Exception failure = null;
        try {
            s = new Sessions(
                    NoiseVectorSupport.drive(NoiseVectorSupport.referencedVector(file,
                            root.get("fsp_session_source").asText()), Pattern.XK),
                    NoiseVectorSupport.drive(NoiseVectorSupport.referencedVector(file,
                            root.get("fmp_session_source").asText()), Pattern.IK));
        } catch (final Exception ex) {
            failure = ex;
        }
        final List<JsonNode> messages = new ArrayList<>();
        root.get("messages").forEach(messages::add);
        final List<Tally.Expect> expects = new ArrayList<>();
        for (int i = 0; i < messages.size(); i++) {
            final Tally.Expect e = new Tally.Expect();
            expects.add(e);
            if (s == null) {
                e.that("handshakes failed: " + failure, false);
            }
        }
        if (s != null) {
            for (final String backend : DataPlanePath.backends()) {
                try (AeadCipher cipher = AeadCiphers.create(backend);
                     DataPlanePath sender = new DataPlanePath(backend);
                     DataPlanePath receiver = new DataPlanePath(backend)) {
                    final Hop hop = hop(root, messages.getFirst(), s, sender, receiver);
                    final TransportSession fspSender = new TransportSession(s.fsp().initiator().sendKey(),
                            s.fsp().initiator().recvKey());
                    final TransportSession fspReceiver = new TransportSession(s.fsp().responder().sendKey(),
                            s.fsp().responder().recvKey());
                    for (int i = 0; i < messages.size(); i++) {
                        final Tally.Expect e = expects.get(i).prefixed(backend + ": ");
                        try {
                            message(root, messages.get(i), s, cipher, hop, fspSender, fspReceiver, e);
                        } catch (final Exception | AssertionError ex) {
                            e.that("threw " + ex, false);
                        }
                    }
                } catch (final Exception | AssertionError ex) {
                    for (final Tally.Expect e : expects) {
                        e.that(backend + ": " + ex, false);
                    }
                }
            }
        }
        for (int i = 0; i < messages.size(); i++) {
            expects.get(i).record(tally, MESSAGES, "#" + i + " " + messages.get(i).get("description").asText());
        }
        try {
            final Tally.Expect e = new Tally.Expect();
            if (s == null) {
                e.that("handshakes failed: " + failure, false);
            } else {
                plaintextError(root.get(PLAINTEXT), s, e);
            }
            e.record(tally, PLAINTEXT, "CoordsRequired");
        } catch (final Exception | AssertionError ex) {
            tally.error(PLAINTEXT, "CoordsRequired", ex);
        }
    }

    private static void message(final JsonNode root, final JsonNode m, final Sessions s, final AeadCipher cipher,
                                final Hop hop, final TransportSession fspSender,
                                final TransportSession fspReceiver, final Tally.Expect e) throws Exception {
        final byte[] fspKey = Hex.field(m, "fsp_sender_key_hex");
        e.bytes("fsp key is the XK initiator's send key", s.fsp().initiator().sendKey(), fspKey)
                .hex("file fsp key", root.get("fsp_key_initiator_to_responder_hex").asText(), fspKey);

        // FSP message: header (AAD) ‖ [CP coordinates, cleartext] ‖ seal(inner header ‖ body).
        final long counter = u64(m, "fsp_counter");
        final int flags = Integer.parseInt(m.get("fsp_flags_hex").asText(), 16);
        final long timestamp = u64(m, "inner_timestamp_ms");
        final int msgType = Integer.parseInt(m.get("inner_msg_type_hex").asText(), 16);
        final int innerFlags = Integer.parseInt(m.get("inner_flags_hex").asText(), 16);
        final byte[] body = WireJson.HEX.parseHex(WireJson.startingWith(m, "inner_body_hex").asText());
        final byte[] plaintext = FspInnerHeader.prepend(timestamp, msgType, innerFlags, body);
        final byte[] header = FspHeader.build(counter, flags, plaintext.length);
        final boolean cp = (flags & FspFlags.CP) != 0;
        e.equal("CP flag matches the presence of coordinates", !m.get("cleartext_src_coords_hex").isNull(), cp);
        final FspCpCoords wantCoords = cp ? new FspCpCoords(coords(m, "cleartext_src_coords_hex"),
                coords(m, "cleartext_dest_coords_hex")) : null;
        final byte[] prefix = cp ? concat(header, wantCoords.encode()) : header;
        final byte[] fsp = InPlaceAead.seal(cipher, fspKey, counter, prefix, FspHeader.SIZE, plaintext);
        final byte[] wantFsp = Hex.field(m, "fsp_message_hex");
        e.hex("inner plaintext", m.get("inner_plaintext_hex").asText(), plaintext)
                .hex("fsp header (AAD)", m.get("fsp_header_aad_hex").asText(), header)
                .bytes("fsp message", wantFsp, fsp);
        // The control plane's session object: its own counter (messages in file order), the header as AAD.
        e.equal("TransportSession send counter", counter, fspSender.nextSendCounter())
                .bytes("fsp message sealed by TransportSession", wantFsp,
                        concat(prefix, fspSender.encrypt(header, plaintext)));
        e.bytes("fsp plaintext opened by TransportSession", plaintext, fspReceiver.decrypt(counter, header,
                Arrays.copyOfRange(wantFsp, prefix.length, wantFsp.length)));

        // SessionDatagram carrying it, from the session's source to its destination.
        final JsonNode sd = m.get("session_datagram");
        final SessionDatagram datagram = new SessionDatagram(sd.get("ttl").asInt(), sd.get("path_mtu").asInt(),
                addr(sd, "src_addr_hex"), addr(sd, "dest_addr_hex"), fsp);
        final byte[] wantDatagram = Hex.field(sd, "encoded_hex");
        e.bytes("session datagram", wantDatagram, datagram.encode())
                .equal("src is the XK initiator", nodeOf(s.fsp().responder().remoteStatic()), datagram.src())
                .equal("dest is the XK responder", nodeOf(s.fsp().initiator().remoteStatic()), datagram.dest());

        // The first hop's FMP frame.
        final JsonNode hopJson = m.get("fmp_hop");
        final byte[] fmpKey = WireJson.HEX.parseHex(WireJson.startingWith(hopJson, "fmp_sender_key_hex").asText());
        e.bytes("fmp key is the IK initiator's send key", s.fmp().initiator().sendKey(), fmpKey)
                .hex("file fmp key", root.get("fmp_key_initiator_to_responder_hex").asText(), fmpKey);
        final long fmpCounter = u64(hopJson, "fmp_counter");
        final int fmpFlags = Integer.parseInt(hopJson.get("fmp_flags_hex").asText(), 16);
        final long fmpTimestamp = u64(hopJson, "fmp_timestamp_ms");
        final int receiverIdx = (int) u64(hopJson, "receiver_idx");
        final byte[] fmpPlain = FmpInnerHeader.prepend(fmpTimestamp, wantDatagram);
        final byte[] fmpHeader = FmpEstablishedHeader.build(fmpFlags, fmpPlain.length, receiverIdx, fmpCounter);
        final byte[] wantFrame = Hex.field(hopJson, "fmp_frame_hex");
        e.hex("fmp header (AAD)", hopJson.get("fmp_header_aad_hex").asText(), fmpHeader)
                .equal("receiver_idx is the hop's", hop.receiverIdx(), receiverIdx)
                .equal("fmp_frame_len", hopJson.get("fmp_frame_len").asInt(), wantFrame.length);
        final FmpEstablishedHeader h = ok(new FmpEstablishedHeader().wrap(wantFrame, 0, wantFrame.length),
                "fmp header");
        e.equal("fmp flags", fmpFlags, h.flags()).equal("fmp counter", fmpCounter, h.counter())
                .equal("receiver_idx", receiverIdx, h.receiverIdx())
                .equal("fmp payload_len", fmpPlain.length, h.payloadLen())
                .that("fmp payload_len matches the ciphertext", h.payloadLenConsistent());

        // The sending node's data plane frames and seals the datagram (its first session: flags 0x00).
        e.equal("hop flags are the data plane's (K = 0, nothing else)", 0, fmpFlags)
                .bytes("fmp frame sealed by the data plane", wantFrame,
                        hop.sender().sendDatagram(HOP_AT_SENDER, fmpTimestamp, wantDatagram));

        // The receiving node's data plane opens the reference's frame and delivers the datagram.
        final DataPlanePath.Received got = hop.receiver().inject(wantFrame);
        if (got == null) {
            e.that("the receiving data plane did not deliver the frame: " + hop.receiver().drops(), false);
            return;
        }
        e.equal("delivered on the hop's link", HOP_AT_RECEIVER, got.linkId())
                .that("delivered to the local-delivery hook", got.datagram())
                .bytes("session datagram delivered by the data plane", wantDatagram, got.message());
        try (Arena arena = Arena.ofConfined()) {
            unwrap(arena, InPlaceAead.offHeap(arena, got.message()), m, s, cipher, e, datagram, wantCoords,
                    plaintext, body);
        }
    }

    /**
     * Takes the SessionDatagram the data plane delivered apart in place, as the receiving node's session layer
     * would, and compares every layer.
     */
    private static void unwrap(final Arena arena, final MemorySegment seg, final JsonNode m, final Sessions s,
                               final AeadCipher cipher, final Tally.Expect e, final SessionDatagram datagram,
                               final FspCpCoords wantCoords, final byte[] plaintext, final byte[] body) {
        e.equal("link msg_type", LinkMessageType.SESSION_DATAGRAM.code(),
                Byte.toUnsignedInt(seg.get(ValueLayout.JAVA_BYTE, 0)));
        final SessionDatagramHeader sd = ok(new SessionDatagramHeader().wrap(seg, 0, seg.byteSize()),
                "session datagram header");
        e.equal("ttl", datagram.ttl(), sd.ttl()).equal("path_mtu", datagram.pathMtu(), sd.pathMtu())
                .equal("src", datagram.src(), sd.src()).equal("dest", datagram.dest(), sd.dest())
                .equal("session datagram (owned decode)", datagram, ok(SessionDatagram.decode(seg, 0,
                        seg.byteSize()), "SessionDatagram"));

        final long fspBase = sd.payloadOffset();
        final FspHeader f = ok(new FspHeader().wrap(seg, fspBase, sd.payloadLength()), "fsp header");
        e.equal("fsp flags", Integer.parseInt(m.get("fsp_flags_hex").asText(), 16), f.flags())
                .equal("fsp counter", u64(m, "fsp_counter"), f.counter())
                .equal("fsp payload_len", plaintext.length, f.payloadLen())
                .equal("CP", wantCoords != null, f.coordsPresent());
        long ct = f.bodyOffset();
        if (f.coordsPresent()) {
            final FspCpCoords c = ok(FspCpCoords.decode(seg, f.bodyOffset(), f.bodyLength()), "CP coordinates");
            e.equal("CP coordinates", wantCoords, c);
            ct += c.encodedSize();
        }
        final int ctLen = (int) (f.bodyOffset() + f.bodyLength() - ct);
        final int pn = InPlaceAead.open(cipher, arena, s.fsp().responder().recvKey(), f.counter(), seg, fspBase,
                FspHeader.SIZE, ct, ctLen);
        if (pn == AeadCipher.AUTH_FAILED) {
            e.that("fsp message did not open with the XK responder's key", false);
            return;
        }
        e.equal("fsp opened length", f.payloadLen(), pn)
                .bytes("fsp opened plaintext", plaintext, InPlaceAead.bytes(seg, ct, pn));
        final FspInnerHeader ih = ok(new FspInnerHeader().wrap(seg, ct, pn), "fsp inner header");
        e.equal("inner timestamp", u64(m, "inner_timestamp_ms"), ih.timestamp())
                .equal("inner msg_type", Integer.parseInt(m.get("inner_msg_type_hex").asText(), 16), ih.msgType())
                .equal("inner flags", Integer.parseInt(m.get("inner_flags_hex").asText(), 16), ih.innerFlags())
                .bytes("body", body, InPlaceAead.bytes(seg, ih.bodyOffset(), ih.bodyLength()));
        body(m.get("description").asText(), seg, ih, datagram, f.flags(), plaintext, e);
    }

    /** Decodes the body with the codec its msg_type selects and re-encodes it. */
    private static void body(final String description, final MemorySegment seg, final FspInnerHeader ih,
                             final SessionDatagram datagram, final int fspFlags, final byte[] plaintext,
                             final Tally.Expect e) {
        final byte[] body = InPlaceAead.bytes(seg, ih.bodyOffset(), ih.bodyLength());
        if (ih.msgType() == DataPacket.MSG_TYPE) {
            final DataPacket d = ok(DataPacket.decode(seg, ih.bodyOffset(), ih.bodyLength()), "DataPacket");
            e.bytes("DataPacket re-encoded", body, d.encode());
            final Matcher ports = PORTS.matcher(description);
            if (ports.find()) {
                e.equal("src_port", Integer.parseInt(ports.group(1)), d.srcPort())
                        .equal("dst_port", Integer.parseInt(ports.group(2)), d.dstPort());
            }
            if (d.dstPort() == PortHeader.PORT_IPV6_SHIM) {
                // Rebuild the IPv6 packet as the destination does, then compress it again as the source did.
                final byte[] ipv6 = ok(Ipv6Shim.decompress(d.payload(), 0, d.payload().length, datagram.src(),
                        Ipv6Shim.fipsAddress(datagram.dest())), "IPv6 shim");
                e.bytes("IPv6 source", Ipv6Shim.fipsAddress(datagram.src()), Arrays.copyOfRange(ipv6, 8, 24))
                        .bytes("IPv6 shim round trip", d.payload(), ok(Ipv6Shim.compress(ipv6, 0, ipv6.length),
                                "IPv6 compress"));
            }
        } else if (ih.msgType() == MmpSenderReport.SESSION_MSG_TYPE) {
            final MmpSenderReport r = ok(MmpSenderReport.decodeSession(seg, ih.bodyOffset(), ih.bodyLength()),
                    "SessionSenderReport");
            e.bytes("SenderReport re-encoded", body, r.encodeSession())
                    .that("description names SenderReport", description.contains("SenderReport"));
        } else if (ih.msgType() == CoordsWarmup.MSG_TYPE) {
            e.equal("CoordsWarmup flags", CoordsWarmup.FLAGS, fspFlags)
                    .bytes("CoordsWarmup plaintext", CoordsWarmup.innerPlaintext(ih.timestamp(), ih.innerFlags()),
                            plaintext);
        } else {
            e.that("no check for session msg_type " + ih.msgType(), false);
        }
    }

    private static void plaintextError(final JsonNode v, final Sessions s, final Tally.Expect e) {
        final byte[] enc = Hex.field(v, "fsp_message_hex");
        final FspErrorSignal sig = ok(FspErrorSignal.decode(enc, 0, enc.length), "FspErrorSignal");
        final CoordsRequired cr = ok(CoordsRequired.decode(enc, 0, enc.length), "CoordsRequired");
        e.equal("signal type", CoordsRequired.class, sig.getClass())
                .equal("decoded", cr, sig)
                .bytes("re-encoded", enc, cr.encode())
                .bytes("rebuilt", enc, new CoordsRequired(cr.destAddr(), cr.reporter()).encode())
                .equal("dest_addr is the session's destination (XK responder)",
                        nodeOf(s.fsp().initiator().remoteStatic()), cr.destAddr())
                .that("reporter is a transit, not an endpoint", !cr.reporter().equals(cr.destAddr())
                        && !cr.reporter().equals(nodeOf(s.fsp().responder().remoteStatic())))
                .equal("encrypted-header parse refuses the U flag", WireError.BAD_FLAGS,
                        new FspHeader().wrap(enc, 0, enc.length).errorOrNull());
    }

    /** The node address of a 33-byte compressed public key (hash of its x coordinate). */
    private static NodeAddr nodeOf(final byte[] compressed) {
        return NodeAddrs.fromPublicKey(Arrays.copyOfRange(compressed, 1, compressed.length));
    }

    private static byte[] concat(final byte[] a, final byte[] b) {
        final byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
