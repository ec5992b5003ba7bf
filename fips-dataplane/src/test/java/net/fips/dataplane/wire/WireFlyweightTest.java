package net.fips.dataplane.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import net.fips.testing.Hex;

/**
 * Hot-path flyweights against the plaintext parts of fmp_frame.json and fsp_message.json (headers, indices,
 * counters, CP coordinates, inner headers), read from off-heap segments at a non-zero offset.
 */
class WireFlyweightTest {

    /** Copies {@code b} into a native segment at offset 7, so offsets are really honoured. */
    private static MemorySegment offHeap(final Arena arena, final byte[] b) {
        final MemorySegment s = arena.allocate(b.length + 16);
        MemorySegment.copy(b, 0, s, ValueLayout.JAVA_BYTE, 7, b.length);
        return s;
    }

    @Test
    void fmpHandshakePacketsAndEstablishedHeaders() {
        final JsonNode f = Vectors.load("fmp_frame.json");
        final byte[] m1 = Hex.field(f, "msg1_wire_hex");
        final FmpMsg1 msg1 = FmpMsg1.decode(m1, 0, m1.length).valueOrNull();
        assertEquals(f.get("initiator_sender_idx").asLong(), Integer.toUnsignedLong(msg1.senderIdx()));
        assertArrayEquals(m1, msg1.encode());
        final byte[] m2 = Hex.field(f, "msg2_wire_hex");
        final FmpMsg2 msg2 = FmpMsg2.decode(m2, 0, m2.length).valueOrNull();
        assertEquals(f.get("responder_sender_idx").asLong(), Integer.toUnsignedLong(msg2.senderIdx()));
        assertEquals(msg1.senderIdx(), msg2.receiverIdx());
        assertArrayEquals(m2, msg2.encode());

        final FmpPrefix prefix = new FmpPrefix();
        assertEquals(FmpPrefix.PHASE_MSG1, prefix.wrap(m1, 0, m1.length).valueOrNull().phase());
        assertEquals(110, prefix.payloadLen());
        assertEquals(WireError.TRAILING, FmpMsg1.decode(Arrays.copyOf(m1, 115), 0, 115).errorOrNull());
        assertEquals(WireError.TRUNCATED, FmpMsg2.decode(m2, 0, 68).errorOrNull());
        final byte[] flagged = m1.clone();
        flagged[1] = 1;
        assertEquals(WireError.BAD_FLAGS, FmpMsg1.decode(flagged, 0, flagged.length).errorOrNull());
        assertEquals(WireError.BAD_PHASE, FmpMsg2.decode(Arrays.copyOf(m1, 69), 0, 69).errorOrNull());

        final FmpEstablishedHeader h = new FmpEstablishedHeader();
        final FmpInnerHeader inner = new FmpInnerHeader();
        try (Arena arena = Arena.ofConfined()) {
            for (final JsonNode fr : f.get("established_frames")) {
                final byte[] frame = Hex.field(fr, "frame_hex");
                final MemorySegment s = offHeap(arena, frame);
                assertSame(h, h.wrap(s, 7, frame.length).valueOrNull());
                final byte[] plain = Hex.field(fr, "inner_plaintext_hex");
                final int flags = Integer.parseInt(fr.get("flags_hex").asText(), 16);
                assertEquals(flags, h.flags());
                assertEquals(plain.length, h.payloadLen());
                assertTrue(h.payloadLenConsistent());
                assertEquals(fr.get("receiver_idx").asLong(), Integer.toUnsignedLong(h.receiverIdx()));
                assertEquals(fr.get("counter").asLong(), h.counter());
                assertEquals((flags & 1) != 0, h.keyEpoch());
                assertEquals((flags & 2) != 0, h.congestionExperienced());
                assertEquals((flags & 4) != 0, h.spin());
                assertEquals(7 + 16, h.ciphertextOffset());
                assertEquals(frame.length - 16, h.ciphertextLength());
                assertArrayEquals(Hex.field(fr, "header_aad_hex"),
                        FmpEstablishedHeader.build(flags, plain.length, h.receiverIdx(), h.counter()));

                assertSame(inner, inner.wrap(plain, 0, plain.length).valueOrNull());
                assertEquals(fr.get("timestamp_ms").asLong(), inner.timestamp());
                final byte[] link = Hex.field(fr, "link_message_hex");
                assertEquals(link[0] & 0xFF, inner.msgType());
                assertEquals(link.length, inner.messageLength());
                assertArrayEquals(plain, FmpInnerHeader.prepend(inner.timestamp(), link));
            }
        }
        assertEquals(WireError.TRUNCATED, h.wrap(new byte[31], 0, 31).errorOrNull());
        assertEquals(WireError.BAD_PHASE, h.wrap(m1, 0, m1.length).errorOrNull());
        final byte[] v1 = new byte[40];
        v1[0] = 0x10;
        assertEquals(WireError.BAD_VERSION, h.wrap(v1, 0, v1.length).errorOrNull());
        assertEquals(WireError.BAD_LENGTH, h.wrap(v1, 10, 31).errorOrNull());
    }

    @Test
    void fspHeadersCoordsAndDatagrams() {
        final JsonNode f = Vectors.load("fsp_message.json");
        final FspHeader h = new FspHeader();
        final FspInnerHeader inner = new FspInnerHeader();
        final SessionDatagramHeader dg = new SessionDatagramHeader();
        int cp = 0;
        try (Arena arena = Arena.ofConfined()) {
            for (final JsonNode m : f.get("messages")) {
                final byte[] msg = Hex.field(m, "fsp_message_hex");
                final MemorySegment s = offHeap(arena, msg);
                assertSame(h, h.wrap(s, 7, msg.length).valueOrNull());
                final int flags = Integer.parseInt(m.get("fsp_flags_hex").asText(), 16);
                final byte[] plain = Hex.field(m, "inner_plaintext_hex");
                assertEquals(flags, h.flags());
                assertEquals(m.get("fsp_counter").asLong(), h.counter());
                assertEquals(plain.length, h.payloadLen());
                assertArrayEquals(Hex.field(m, "fsp_header_aad_hex"),
                        FspHeader.build(h.counter(), flags, plain.length));
                long ctOffset = h.bodyOffset();
                if (h.coordsPresent()) {
                    cp++;
                    final FspCpCoords c = FspCpCoords.decode(s, h.bodyOffset(), h.bodyLength()).valueOrNull();
                    assertEquals(coords(m.get("cleartext_src_coords_hex")), c.src());
                    assertEquals(coords(m.get("cleartext_dest_coords_hex")), c.dest());
                    final byte[] section = Arrays.copyOfRange(msg, 12, 12 + c.encodedSize());
                    assertArrayEquals(section, c.encode());
                    ctOffset += c.encodedSize();
                }
                // What remains is ciphertext plus tag: exactly payload_len + 16 bytes.
                assertEquals(7 + msg.length - ctOffset, plain.length + FspHeader.TAG_SIZE);

                assertSame(inner, inner.wrap(plain, 0, plain.length).valueOrNull());
                assertEquals(m.get("inner_timestamp_ms").asLong(), inner.timestamp());
                assertEquals(Integer.parseInt(m.get("inner_msg_type_hex").asText(), 16), inner.msgType());
                assertEquals(Integer.parseInt(m.get("inner_flags_hex").asText(), 16), inner.innerFlags());
                if (inner.msgType() == DataPacket.MSG_TYPE) {
                    final DataPacket p = DataPacket.decode(plain, 6, plain.length - 6).valueOrNull();
                    assertArrayEquals(Arrays.copyOfRange(plain, 6, plain.length), p.encode());
                } else if (inner.msgType() == CoordsWarmup.MSG_TYPE) {
                    assertEquals(CoordsWarmup.FLAGS, flags);
                    assertArrayEquals(plain, CoordsWarmup.innerPlaintext(inner.timestamp(), inner.innerFlags()));
                }

                final JsonNode sd = m.get("session_datagram");
                final byte[] d = Hex.field(sd, "encoded_hex");
                final MemorySegment ds = offHeap(arena, d);
                assertSame(dg, dg.wrap(ds, 7, d.length).valueOrNull());
                assertEquals(sd.get("ttl").asInt(), dg.ttl());
                assertEquals(sd.get("path_mtu").asInt(), dg.pathMtu());
                assertTrue(dg.srcMatches(NodeAddr.ofHex(sd.get("src_addr_hex").asText())));
                assertTrue(dg.destMatches(NodeAddr.ofHex(sd.get("dest_addr_hex").asText())));
                assertEquals(msg.length, dg.payloadLength());
                final byte[] carried = ds.asSlice(dg.payloadOffset(), dg.payloadLength())
                        .toArray(ValueLayout.JAVA_BYTE);
                assertArrayEquals(msg, carried);
                // Forwarders rewrite ttl and path_mtu in place.
                dg.ttl(dg.ttl() - 1);
                dg.pathMtu(1280);
                final SessionDatagram owned = SessionDatagram.decode(ds, 7, d.length).valueOrNull();
                assertEquals(sd.get("ttl").asInt() - 1, owned.ttl());
                assertEquals(1280, owned.pathMtu());
                assertArrayEquals(msg, owned.payload());
            }
        }
        assertEquals(2, cp);

        final byte[] err = Hex.field(f.get("plaintext_error_example"), "fsp_message_hex");
        assertEquals(WireError.BAD_FLAGS, h.wrap(err, 0, err.length).errorOrNull());
        assertTrue(new FspPrefix().wrap(err, 0, err.length).valueOrNull().isErrorSignal());
        assertTrue(FspErrorSignal.decode(err, 0, err.length).valueOrNull() instanceof CoordsRequired);
        assertEquals(WireError.BAD_TYPE, PathBroken.decode(err, 0, err.length).errorOrNull());
        assertEquals(WireError.TRUNCATED, dg.wrap(new byte[35], 0, 35).errorOrNull());
        assertEquals(WireError.BAD_TYPE, dg.wrap(new byte[] {0x51}, 0, 1).errorOrNull());
    }

    @Test
    void ipv6ShimRefusals() {
        final byte[] v4 = new byte[40];
        v4[0] = 0x45;
        assertEquals(WireError.BAD_VERSION, Ipv6Shim.compress(v4, 0, 40).errorOrNull());
        assertEquals(WireError.TRUNCATED, Ipv6Shim.compress(new byte[39], 0, 39).errorOrNull());
        final byte[] shim = {1, 0x60, 0, 0, 0, 17, 64};
        assertEquals(WireError.BAD_TYPE, Ipv6Shim.decompress(shim, 0, 7, NodeAddr.ZERO, new byte[16]).errorOrNull());
        assertEquals(WireError.TRUNCATED, Ipv6Shim.decompress(shim, 0, 6, NodeAddr.ZERO, new byte[16])
                .errorOrNull());
        shim[0] = 0;
        shim[1] = 0x00;
        // The version nibble is forced to 6 on decompression, whatever the residual says.
        final byte[] ip = Ipv6Shim.decompress(shim, 0, 7, NodeAddr.ZERO, new byte[16]).valueOrNull();
        assertEquals(0x60, ip[0] & 0xF0);
        assertEquals(40, ip.length);
    }

    private static Coords coords(final JsonNode arr) {
        final List<NodeAddr> out = new ArrayList<>();
        arr.forEach(a -> out.add(NodeAddr.ofHex(a.asText())));
        return new Coords(out);
    }
}
