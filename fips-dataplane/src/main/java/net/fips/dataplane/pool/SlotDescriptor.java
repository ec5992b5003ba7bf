package net.fips.dataplane.pool;

/**
 * Layout of one packet slot inside the {@link PacketPool} segment, and the headroom arithmetic behind it.
 *
 * <pre>
 *  slot base (64-byte aligned)
 *  +0    +--------------------------------------------------------------+
 *        | data offset i32 | data length i32 | state i32 | free-next i32 |   slot header, 16 bytes
 *  +16   +--------------------------------------------------------------+
 *        | headroom (496 bytes): room to prepend every encapsulation     |
 *        | layer in place, see below                                     |
 *  +512  +--------------------------------------------------------------+  DEFAULT_DATA_OFFSET (64-aligned)
 *        | data region: up to maxMtuBytes bytes (one transport packet)   |
 *        +--------------------------------------------------------------+
 *        | tailroom (32 bytes): FSP tag + FMP tag appended in place      |
 *        +--------------------------------------------------------------+
 *        | padding up to the 64-byte slot stride                         |
 *        +--------------------------------------------------------------+
 * </pre>
 *
 * <h2>Headroom arithmetic</h2>
 * The worst case is an outbound IPv6 data packet read from TUN at {@link #DEFAULT_DATA_OFFSET} and wrapped,
 * innermost first, into a frame on an Ethernet link (sizes from crypto-link.md §5.4/§7.6 and routing-session.md
 * §4.1/§5.6/§5.10):
 * <pre>
 *   DataPacket ports      src_port u16 + dst_port u16                       4
 *   FSP inner prefix      timestamp u32 + msg_type u8 + inner_flags u8        6
 *   FSP header (AAD)      version/phase, flags, payload_len u16, counter u64 12
 *   SessionDatagram body  ttl u8 + path_mtu u16 + src(16) + dest(16)         35
 *   FMP inner prefix      timestamp u32 + msg_type u8 (0x00)                  5
 *   FMP header (AAD)      common prefix 4 + receiver_idx u32 + counter u64   16
 *   Ethernet framing      [0x00][len u16 LE]                                  3
 *                                                                          ----
 *   FIXED_PREPEND_BYTES                                                      81
 *   CP coordinates        2 lists x (count u16 + 12 x node_addr(16))        388
 *                                                                          ----
 *   REQUIRED_HEADROOM_BYTES                                                 469  (fits in HEADROOM_BYTES = 496)
 * </pre>
 * The 81 fixed bytes match the reference's {@code FIPS_OVERHEAD = 106}: 106 - 32 tag bytes (tailroom) + 4 port
 * bytes + 3 Ethernet bytes. Compressing the 40-byte IPv6 header into the 7-byte port-256 shim frees 33 bytes at
 * the front, which only adds slack. Coordinates deeper than 12 hops are rare; the sender then moves the data
 * backwards inside the same slot ({@link PacketView#ensureHeadroom(int)}), still without a second buffer.
 * The inbound direction needs no headroom at all: every layer is stripped ({@link PacketView#trimFront(int)})
 * before the shim is expanded by 33 bytes, so the packet only ever grows into bytes already trimmed.
 * <p>
 * Tailroom holds both Poly1305 tags (16 + 16) written by {@code seal} right after the plaintext. A receive may
 * also use it to detect a datagram larger than the MTU (the kernel reports truncation against that capacity).
 */
public final class SlotDescriptor {
    /** Cache line size assumed for alignment and padding. */
    public static final int CACHE_LINE_BYTES = 64;

    /** Offset of the current data start (i32, relative to the slot base); written by the owner only. */
    public static final int DATA_OFFSET_FIELD = 0;
    /** Offset of the current data length (i32); written by the owner only. */
    public static final int DATA_LENGTH_FIELD = 4;
    /** Offset of the ownership state (i32, {@link #STATE_FREE} or {@link #STATE_IN_USE}); changed by CAS. */
    public static final int STATE_FIELD = 8;
    /** Offset of the free-list link (i32 slot index or -1); meaningful only while the slot is free. */
    public static final int FREE_NEXT_FIELD = 12;
    /** Length of the slot header. */
    public static final int SLOT_HEADER_BYTES = 16;

    /** State of a slot that sits in the free list. */
    public static final int STATE_FREE = 0;
    /** State of a slot owned by exactly one agent. */
    public static final int STATE_IN_USE = 1;

    /** Port bytes of an FSP DataPacket body (src_port u16 LE, dst_port u16 LE). */
    public static final int DATA_PACKET_PORTS_BYTES = 4;
    /** FSP inner plaintext prefix: timestamp u32, msg_type u8, inner_flags u8. */
    public static final int FSP_INNER_PREFIX_BYTES = 6;
    /** FSP established header, also the AEAD associated data. */
    public static final int FSP_HEADER_BYTES = 12;
    /** SessionDatagram body before the FSP payload: ttl, path_mtu, src and dest node addresses. */
    public static final int SESSION_DATAGRAM_BODY_BYTES = 35;
    /** FMP inner plaintext prefix: timestamp u32 and the link msg_type byte. */
    public static final int FMP_INNER_PREFIX_BYTES = 5;
    /** FMP established header, also the AEAD associated data. */
    public static final int FMP_HEADER_BYTES = 16;
    /** Ethernet transport data-frame header: type byte and u16 LE length. */
    public static final int ETHERNET_FRAMING_BYTES = 3;
    /** Poly1305 tag length; each of FSP and FMP appends one. */
    public static final int AEAD_TAG_BYTES = 16;

    /** Bytes every outbound data packet gains in front, excluding optional coordinates. */
    public static final int FIXED_PREPEND_BYTES = DATA_PACKET_PORTS_BYTES + FSP_INNER_PREFIX_BYTES
            + FSP_HEADER_BYTES + SESSION_DATAGRAM_BODY_BYTES + FMP_INNER_PREFIX_BYTES + FMP_HEADER_BYTES
            + ETHERNET_FRAMING_BYTES;
    /** Coordinate-list depth (node addresses per list) that still fits the headroom without a move. */
    public static final int COORDS_DEPTH_RESERVED = 12;
    /** Space for the CP flag's two coordinate lists, each {@code count u16 || count x node_addr(16)}. */
    public static final int COORDS_RESERVE_BYTES = 2 * (2 + 16 * COORDS_DEPTH_RESERVED);
    /** Headroom the arithmetic above asks for. */
    public static final int REQUIRED_HEADROOM_BYTES = FIXED_PREPEND_BYTES + COORDS_RESERVE_BYTES;

    /** Where a fresh slot's data starts: header + required headroom, rounded up to a cache line. */
    public static final int DEFAULT_DATA_OFFSET = align(SLOT_HEADER_BYTES + REQUIRED_HEADROOM_BYTES,
            CACHE_LINE_BYTES);
    /** Headroom actually available in front of a fresh slot's data. */
    public static final int HEADROOM_BYTES = DEFAULT_DATA_OFFSET - SLOT_HEADER_BYTES;
    /** Room after the data region for the two AEAD tags. */
    public static final int TAILROOM_BYTES = 2 * AEAD_TAG_BYTES;

    /** Smallest accepted maximum MTU: the IPv6 minimum link MTU, also the UDP transport default. */
    public static final int MIN_MTU_BYTES = 1280;
    /** Largest accepted maximum MTU: a UDP/GRO or loopback datagram, and the u16 length fields' limit. */
    public static final int MAX_MTU_BYTES = 65535;
    /** Default maximum MTU: covers UDP (1280), TCP/Tor/Nym (1400) and Ethernet on a 1500 link (1497). */
    public static final int DEFAULT_MTU_BYTES = 1500;

    private SlotDescriptor() {
    }

    /**
     * Distance between consecutive slots for a given maximum transport MTU.
     *
     * @param maxMtuBytes the largest packet any transport will place in a slot
     * @return header + headroom + MTU + tailroom, rounded up to a cache line
     */
    public static int slotStrideBytes(final int maxMtuBytes) {
        return align(DEFAULT_DATA_OFFSET + maxMtuBytes + TAILROOM_BYTES, CACHE_LINE_BYTES);
    }

    static int align(final int value, final int alignment) {
        return (value + alignment - 1) & -alignment;
    }
}
