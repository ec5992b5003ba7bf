package net.fips.dataplane.pool;

import static net.fips.dataplane.pool.SlotDescriptor.AEAD_TAG_BYTES;
import static net.fips.dataplane.pool.SlotDescriptor.DATA_PACKET_PORTS_BYTES;
import static net.fips.dataplane.pool.SlotDescriptor.DEFAULT_DATA_OFFSET;
import static net.fips.dataplane.pool.SlotDescriptor.ETHERNET_FRAMING_BYTES;
import static net.fips.dataplane.pool.SlotDescriptor.FMP_HEADER_BYTES;
import static net.fips.dataplane.pool.SlotDescriptor.FMP_INNER_PREFIX_BYTES;
import static net.fips.dataplane.pool.SlotDescriptor.FSP_HEADER_BYTES;
import static net.fips.dataplane.pool.SlotDescriptor.FSP_INNER_PREFIX_BYTES;
import static net.fips.dataplane.pool.SlotDescriptor.HEADROOM_BYTES;
import static net.fips.dataplane.pool.SlotDescriptor.SESSION_DATAGRAM_BODY_BYTES;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.ValueLayout;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class PacketViewTest {
    private static final int[] OUTBOUND_LAYERS = {DATA_PACKET_PORTS_BYTES, FSP_INNER_PREFIX_BYTES, FSP_HEADER_BYTES,
        SESSION_DATAGRAM_BODY_BYTES, FMP_INNER_PREFIX_BYTES, FMP_HEADER_BYTES, ETHERNET_FRAMING_BYTES};

    private PacketPool pool;
    private PacketView view;
    private int slot;

    @BeforeEach
    void setUp() {
        pool = new PacketPool(4, 1500, true);
        view = pool.newView();
        slot = pool.acquire();
        view.wrap(slot);
    }

    @AfterEach
    void tearDown() {
        pool.close();
    }

    @Test
    void shouldEncapsulateAndDecapsulateInPlaceWithoutMovingThePayload() {
        final int ipv6Length = 40 + 1180;
        view.setLength(ipv6Length);
        final byte[] payload = pattern(1180);
        view.putBytes(40, payload);
        final long payloadAbsolute = view.dataOffset() + 40L;

        // port-256 shim: the 40-byte header becomes 7 bytes, the front edge moves right by 33
        view.trimFront(33);
        int expectedOffset = DEFAULT_DATA_OFFSET + 33;
        int expectedLength = ipv6Length - 33;
        final int coords = 2 * (2 + 16 * 5);
        for (final int layer : new int[] {OUTBOUND_LAYERS[0], OUTBOUND_LAYERS[1], OUTBOUND_LAYERS[2], coords,
            OUTBOUND_LAYERS[3], OUTBOUND_LAYERS[4], OUTBOUND_LAYERS[5]}) {
            assertTrue(view.ensureHeadroom(layer));
            view.prepend(layer);
            expectedOffset -= layer;
            expectedLength += layer;
            view.putU8(0, 0xA5);
            assertEquals(expectedOffset, view.dataOffset());
            assertEquals(expectedLength, view.length());
        }
        view.append(AEAD_TAG_BYTES);
        view.append(AEAD_TAG_BYTES);
        assertEquals(expectedLength + 32, view.length());
        view.prepend(ETHERNET_FRAMING_BYTES);
        assertEquals(DEFAULT_DATA_OFFSET + 33 - 78 - coords - ETHERNET_FRAMING_BYTES, view.dataOffset());

        final byte[] seen = new byte[payload.length];
        view.slotSegment().asByteBuffer().position((int) payloadAbsolute).get(seen);
        assertArrayEquals(payload, seen, "payload bytes never moved");

        // inbound: strip in the reverse order, then grow the shim back into a 40-byte IPv6 header
        view.trimFront(ETHERNET_FRAMING_BYTES + FMP_HEADER_BYTES + FMP_INNER_PREFIX_BYTES
                + SESSION_DATAGRAM_BODY_BYTES + FSP_HEADER_BYTES + coords + FSP_INNER_PREFIX_BYTES
                + DATA_PACKET_PORTS_BYTES);
        view.trimBack(2 * AEAD_TAG_BYTES);
        view.prepend(33);
        assertEquals(DEFAULT_DATA_OFFSET, view.dataOffset());
        assertEquals(ipv6Length, view.length());
        final byte[] back = new byte[payload.length];
        view.getBytes(40, back);
        assertArrayEquals(payload, back);
    }

    @Test
    void shouldAllowExactlyTheHeadroomAndTailroom() {
        view.setLength(1500);
        assertEquals(HEADROOM_BYTES, view.headroom());
        assertEquals(pool.slotStrideBytes() - DEFAULT_DATA_OFFSET - 1500, view.tailroom());
        assertTrue(view.tailroom() >= 2 * AEAD_TAG_BYTES);
        assertThrows(IndexOutOfBoundsException.class, () -> view.prepend(HEADROOM_BYTES + 1));
        assertThrows(IndexOutOfBoundsException.class, () -> view.append(view.tailroom() + 1));
        assertThrows(IndexOutOfBoundsException.class, () -> view.trimFront(1501));
        assertThrows(IndexOutOfBoundsException.class, () -> view.setLength(-1));
        view.prepend(HEADROOM_BYTES);
        assertEquals(0, view.headroom());
        assertEquals(SlotDescriptor.SLOT_HEADER_BYTES, view.dataOffset());
        view.append(view.tailroom());
        assertEquals(0, view.tailroom());
        assertEquals(pool.slotStrideBytes() - SlotDescriptor.SLOT_HEADER_BYTES, view.length());
    }

    @Test
    void shouldMovePacketInsideTheSlotWhenCoordinatesAreDeep() {
        view.setLength(900);
        final byte[] body = pattern(900);
        view.putBytes(0, body);
        final int deep = HEADROOM_BYTES + 200;
        assertTrue(view.ensureHeadroom(deep));
        assertEquals(deep, view.headroom());
        final byte[] moved = new byte[900];
        view.getBytes(0, moved);
        assertArrayEquals(body, moved);
        view.prepend(deep);
        assertEquals(900 + deep, view.length());
        assertFalse(view.ensureHeadroom(pool.slotStrideBytes()), "cannot fit even after a move");
    }

    @Test
    void shouldReadAndWriteInTheRightByteOrderWithinBounds() {
        view.setLength(16);
        view.putU16Le(0, 0x1234);
        view.putU16Be(2, 0x1234);
        view.putI32Le(4, 0x01020304);
        view.putI64Le(8, 0x0102030405060708L);
        final byte[] raw = new byte[16];
        view.getBytes(0, raw);
        assertArrayEquals(new byte[] {0x34, 0x12, 0x12, 0x34, 4, 3, 2, 1, 8, 7, 6, 5, 4, 3, 2, 1}, raw);
        assertEquals(0x04030201, view.getI32Be(4));
        assertEquals(0x1234, view.getU16Be(2));
        view.putU8(15, 0xFF);
        assertEquals(0xFF, view.getU8(15));
        assertThrows(IndexOutOfBoundsException.class, () -> view.getU8(16));
        assertThrows(IndexOutOfBoundsException.class, () -> view.getI64Le(9));
        assertThrows(IndexOutOfBoundsException.class, () -> view.putI32Le(-1, 0));
    }

    @Test
    void shouldCarryOffsetAndLengthInTheSlotHeaderToTheNextOwner() {
        view.setLength(64);
        view.trimFront(8);
        view.putI32Le(0, 0xCAFEBABE);
        final PacketView next = pool.newView().wrap(slot);
        assertEquals(DEFAULT_DATA_OFFSET + 8, next.dataOffset());
        assertEquals(56, next.length());
        assertEquals(0xCAFEBABE, next.getI32Le(0));
        assertEquals(DEFAULT_DATA_OFFSET + 8, view.slotSegment().get(ValueLayout.JAVA_INT,
                SlotDescriptor.DATA_OFFSET_FIELD));
        next.reset();
        assertEquals(0, view.wrap(slot).length());
    }

    private static byte[] pattern(final int n) {
        final byte[] bytes = new byte[n];
        for (int i = 0; i < n; i++) {
            bytes[i] = (byte) (i * 31 + 7);
        }
        return bytes;
    }
}
