package net.fips.dataplane.ethernet;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

import net.fips.dataplane.wire.WireError;
import net.fips.dataplane.wire.WireResult;

/**
 * Allocation-free view of the payload of one FIPS Ethernet frame (transports.md §4.2), i.e. what follows the
 * 14-byte Ethernet header the kernel adds and strips (EtherType 0x2121 by default).
 *
 * <pre>
 *  data frame   : [0x00] [len u16 LE] [FMP packet, len bytes]            3-byte header
 *  beacon frame : [0x01] [0x01 = beacon version] [x-only pubkey, 32 bytes]  34 bytes
 * </pre>
 *
 * The length field exists because NICs pad short frames to the 60-byte Ethernet minimum: a receiver trims the
 * payload to {@code len} and ignores what follows. A beacon carries no length; anything after its 34 bytes is
 * padding. The key is only a hint: whether it is a valid curve point is checked where it is used (the control
 * plane), and identity comes from the Noise handshake that follows. {@link #wrap} refuses an empty input
 * ({@link WireError#TRUNCATED}), a data frame shorter than its header or whose {@code len} exceeds the bytes
 * received ({@link WireError#TRUNCATED} / {@link WireError#BAD_LENGTH}), a beacon shorter than 34 bytes
 * ({@link WireError#TRUNCATED}) or of another version ({@link WireError#BAD_VERSION}), and any other type byte
 * ({@link WireError#BAD_TYPE}).
 */
public final class EthernetFrame {
    /** Type byte of a data frame. */
    public static final int TYPE_DATA = 0x00;
    /** Type byte of a beacon. */
    public static final int TYPE_BEACON = 0x01;
    /** The only beacon version. */
    public static final int BEACON_VERSION = 0x01;
    /** Bytes a data frame puts in front of the FMP packet. */
    public static final int DATA_HEADER_SIZE = 3;
    /** Offset of a data frame's length field (u16 LE). */
    public static final int LENGTH_OFFSET = 1;
    /** Offset of a beacon's version byte. */
    public static final int VERSION_OFFSET = 1;
    /** Offset of a beacon's x-only key. */
    public static final int KEY_OFFSET = 2;
    /** Size of the key in a beacon. */
    public static final int KEY_SIZE = 32;
    /** Size of a beacon. */
    public static final int BEACON_SIZE = KEY_OFFSET + KEY_SIZE;
    /** The largest payload a data frame's length field can describe. */
    public static final int MAX_DATA_LENGTH = 0xFFFF;

    static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final WireResult<EthernetFrame> self = WireResult.ok(this);
    private MemorySegment seg = MemorySegment.NULL;
    private long base;

    /**
     * Points this view at {@code [off, off+len)} and checks it as described in the class comment.
     *
     * @return this view, or the reason the bytes are not a frame
     */
    public WireResult<EthernetFrame> wrap(final MemorySegment segment, final long off, final long len) {
        if (off < 0 || len < 0 || off > segment.byteSize() - len) {
            return WireResult.err(WireError.BAD_LENGTH);
        }
        final WireError error = check(segment, off, len);
        if (error != null) {
            return WireResult.err(error);
        }
        this.seg = segment;
        this.base = off;
        return self;
    }

    /** As {@link #wrap(MemorySegment, long, long)} over a byte array. */
    public WireResult<EthernetFrame> wrap(final byte[] b, final int off, final int len) {
        return wrap(MemorySegment.ofArray(b), off, len);
    }

    /**
     * The checks of {@link #wrap} without a view, for the receive loop.
     *
     * @return null when the frame is well formed, else the reason
     */
    static WireError check(final MemorySegment segment, final long off, final long len) {
        if (len < 1) {
            return WireError.TRUNCATED;
        }
        final int type = Byte.toUnsignedInt(segment.get(ValueLayout.JAVA_BYTE, off));
        if (type == TYPE_DATA) {
            if (len < DATA_HEADER_SIZE) {
                return WireError.TRUNCATED;
            }
            return Short.toUnsignedInt(segment.get(U16, off + LENGTH_OFFSET)) > len - DATA_HEADER_SIZE
                    ? WireError.BAD_LENGTH : null;
        }
        if (type == TYPE_BEACON) {
            if (len < BEACON_SIZE) {
                return WireError.TRUNCATED;
            }
            return Byte.toUnsignedInt(segment.get(ValueLayout.JAVA_BYTE, off + VERSION_OFFSET)) != BEACON_VERSION
                    ? WireError.BAD_VERSION : null;
        }
        return WireError.BAD_TYPE;
    }

    /** @return the type byte: {@link #TYPE_DATA} or {@link #TYPE_BEACON} */
    public int type() {
        return Byte.toUnsignedInt(seg.get(ValueLayout.JAVA_BYTE, base));
    }

    /** @return for a data frame, the FMP packet's length (padding excluded) */
    public int payloadLength() {
        return Short.toUnsignedInt(seg.get(U16, base + LENGTH_OFFSET));
    }

    /** @return for a data frame, the segment offset where the FMP packet starts */
    public long payloadOffset() {
        return base + DATA_HEADER_SIZE;
    }

    /** @return for a data frame, a copy of the FMP packet (control path and tests) */
    public byte[] payload() {
        final byte[] packet = new byte[payloadLength()];
        MemorySegment.copy(seg, ValueLayout.JAVA_BYTE, payloadOffset(), packet, 0, packet.length);
        return packet;
    }

    /** @return for a beacon, a copy of its 32-byte x-only key */
    public byte[] beaconKey() {
        final byte[] key = new byte[KEY_SIZE];
        MemorySegment.copy(seg, ValueLayout.JAVA_BYTE, base + KEY_OFFSET, key, 0, KEY_SIZE);
        return key;
    }

    /** Writes a data-frame header for a {@code length}-byte FMP packet at {@code off} (the packet follows it). */
    public static void writeDataHeader(final MemorySegment dst, final long off, final int length) {
        if (length < 0 || length > MAX_DATA_LENGTH) {
            throw new IllegalArgumentException("data frame length " + length);
        }
        dst.set(ValueLayout.JAVA_BYTE, off, (byte) TYPE_DATA);
        dst.set(U16, off + LENGTH_OFFSET, (short) length);
    }

    /** Writes a beacon for {@code xOnlyKey} at {@code off} ({@link #BEACON_SIZE} bytes). */
    public static void writeBeacon(final MemorySegment dst, final long off, final byte[] xOnlyKey) {
        if (xOnlyKey.length != KEY_SIZE) {
            throw new IllegalArgumentException("beacon key of " + xOnlyKey.length + " bytes, want " + KEY_SIZE);
        }
        dst.set(ValueLayout.JAVA_BYTE, off, (byte) TYPE_BEACON);
        dst.set(ValueLayout.JAVA_BYTE, off + VERSION_OFFSET, (byte) BEACON_VERSION);
        MemorySegment.copy(xOnlyKey, 0, dst, ValueLayout.JAVA_BYTE, off + KEY_OFFSET, KEY_SIZE);
    }

    /** @return a whole data frame carrying {@code packet} (control path and tests) */
    public static byte[] dataFrame(final byte[] packet) {
        final byte[] out = new byte[DATA_HEADER_SIZE + packet.length];
        final MemorySegment s = MemorySegment.ofArray(out);
        writeDataHeader(s, 0, packet.length);
        MemorySegment.copy(packet, 0, s, ValueLayout.JAVA_BYTE, DATA_HEADER_SIZE, packet.length);
        return out;
    }

    /** @return a whole beacon for {@code xOnlyKey} */
    public static byte[] beacon(final byte[] xOnlyKey) {
        final byte[] out = new byte[BEACON_SIZE];
        writeBeacon(MemorySegment.ofArray(out), 0, xOnlyKey);
        return out;
    }
}
