package net.fips.dataplane.pool;

import static net.fips.dataplane.pool.SlotDescriptor.DATA_LENGTH_FIELD;
import static net.fips.dataplane.pool.SlotDescriptor.DATA_OFFSET_FIELD;
import static net.fips.dataplane.pool.SlotDescriptor.DEFAULT_DATA_OFFSET;
import static net.fips.dataplane.pool.SlotDescriptor.SLOT_HEADER_BYTES;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Objects;

/**
 * A reusable flyweight over one packet slot: the packet is the byte range [data offset, data offset + length)
 * of the slot, and layers are added or removed by moving its front edge.
 *
 * <pre>
 *   slot:  | header 16 | ...headroom()... | data: length() bytes | ...tailroom()... |
 *                                         ^ dataOffset()
 *   prepend(n):   front edge moves left by n, length += n   (write the new header at index 0..n-1)
 *   trimFront(n): front edge moves right by n, length -= n  (strip a parsed header)
 *   append(n) / trimBack(n): the back edge, e.g. for AEAD tags
 * </pre>
 *
 * Indices given to the get/put methods are relative to the data start and checked against {@link #length()}, so
 * a view can never read or write outside the current packet. The data offset and length live in the slot header
 * (off-heap) and are written through on every change, which is what lets the next owner pick the packet up with
 * {@link #wrap(int)} after a ring hand-off.
 * <p>
 * Not thread-safe: one view per agent, created once and rewrapped per packet, never allocating.
 */
public final class PacketView {
    private static final ValueLayout.OfShort SHORT_LE =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort SHORT_BE =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt INT_LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt INT_BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG_LE =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final PacketPool pool;
    private final int slotEnd;
    private MemorySegment slot;
    private int index = PacketPool.NO_SLOT;
    private int dataOffset;
    private int length;

    PacketView(final PacketPool pool) {
        this.pool = pool;
        this.slotEnd = pool.slotStrideBytes();
    }

    /**
     * Points this view at a slot the caller owns and loads its data offset and length.
     *
     * @param slotIndex an owned slot index
     * @return this view
     * @throws IllegalStateException if the pool is strict and the slot is free
     */
    public PacketView wrap(final int slotIndex) {
        final MemorySegment slot = pool.slotSegment(slotIndex);
        if (pool.strictOwnership() && !pool.isInUse(slotIndex)) {
            throw new IllegalStateException("slot " + slotIndex + " is free; wrap only owned slots");
        }
        this.slot = slot;
        this.index = slotIndex;
        this.dataOffset = slot.get(ValueLayout.JAVA_INT, DATA_OFFSET_FIELD);
        this.length = slot.get(ValueLayout.JAVA_INT, DATA_LENGTH_FIELD);
        return this;
    }

    /** @return the wrapped slot index */
    public int slotIndex() {
        return index;
    }

    /** @return the wrapped slot's segment; absolute offsets into it are {@link #dataOffset()} + index */
    public MemorySegment slotSegment() {
        return slot;
    }

    /** @return where the packet starts, relative to the slot base */
    public int dataOffset() {
        return dataOffset;
    }

    /** @return the packet length in bytes */
    public int length() {
        return length;
    }

    /** @return bytes that can still be prepended without moving the packet */
    public int headroom() {
        return dataOffset - SLOT_HEADER_BYTES;
    }

    /** @return bytes that can still be appended after the packet */
    public int tailroom() {
        return slotEnd - dataOffset - length;
    }

    /** Empties the packet and moves its start back to {@link SlotDescriptor#DEFAULT_DATA_OFFSET}. */
    public void reset() {
        store(DEFAULT_DATA_OFFSET, 0);
    }

    /**
     * Sets the packet length, e.g. after a transport wrote a datagram at the data start.
     *
     * @param newLength 0 to {@code length() + tailroom()}
     */
    public void setLength(final int newLength) {
        Objects.checkIndex(newLength, slotEnd - dataOffset + 1);
        store(dataOffset, newLength);
    }

    /**
     * Grows the packet at the front so a header of {@code n} bytes can be written at index 0.
     *
     * @param n bytes to add, at most {@link #headroom()}
     * @throws IndexOutOfBoundsException if the headroom is too small (a sizing bug; see {@link #ensureHeadroom})
     */
    public void prepend(final int n) {
        Objects.checkIndex(n, headroom() + 1);
        store(dataOffset - n, length + n);
    }

    /**
     * Removes {@code n} bytes from the front, e.g. a header that has been parsed.
     *
     * @param n bytes to remove, at most {@link #length()}
     */
    public void trimFront(final int n) {
        Objects.checkIndex(n, length + 1);
        store(dataOffset + n, length - n);
    }

    /**
     * Grows the packet at the back, e.g. for an AEAD tag written after the plaintext.
     *
     * @param n bytes to add, at most {@link #tailroom()}
     */
    public void append(final int n) {
        Objects.checkIndex(n, tailroom() + 1);
        store(dataOffset, length + n);
    }

    /**
     * Removes {@code n} bytes from the back, e.g. a verified AEAD tag.
     *
     * @param n bytes to remove, at most {@link #length()}
     */
    public void trimBack(final int n) {
        Objects.checkIndex(n, length + 1);
        store(dataOffset, length - n);
    }

    /**
     * Makes sure {@code n} bytes can be prepended, moving the packet towards the slot end inside the same slot if
     * the headroom is short (deep coordinates). The move is the rare path; the common path is one compare.
     *
     * @param n bytes about to be prepended
     * @return false if even a moved packet would not fit in the slot
     */
    public boolean ensureHeadroom(final int n) {
        if (n <= headroom()) {
            return true;
        }
        final int newOffset = SLOT_HEADER_BYTES + n;
        if (n < 0 || newOffset > slotEnd - length) {
            return false;
        }
        // overlapping copy: MemorySegment.copy behaves as if through a temporary buffer
        MemorySegment.copy(slot, dataOffset, slot, newOffset, length);
        store(newOffset, length);
        return true;
    }

    /** @return the unsigned byte at {@code i} */
    public int getU8(final int i) {
        return Byte.toUnsignedInt(slot.get(ValueLayout.JAVA_BYTE, at(i, 1)));
    }

    /** Writes the low 8 bits of {@code value} at {@code i}. */
    public void putU8(final int i, final int value) {
        slot.set(ValueLayout.JAVA_BYTE, at(i, 1), (byte) value);
    }

    /** @return the unsigned little-endian 16-bit value at {@code i} */
    public int getU16Le(final int i) {
        return Short.toUnsignedInt(slot.get(SHORT_LE, at(i, 2)));
    }

    /** Writes the low 16 bits of {@code value} little-endian at {@code i}. */
    public void putU16Le(final int i, final int value) {
        slot.set(SHORT_LE, at(i, 2), (short) value);
    }

    /** @return the unsigned big-endian 16-bit value at {@code i} (IPv6 fields) */
    public int getU16Be(final int i) {
        return Short.toUnsignedInt(slot.get(SHORT_BE, at(i, 2)));
    }

    /** Writes the low 16 bits of {@code value} big-endian at {@code i}. */
    public void putU16Be(final int i, final int value) {
        slot.set(SHORT_BE, at(i, 2), (short) value);
    }

    /** @return the little-endian 32-bit value at {@code i} */
    public int getI32Le(final int i) {
        return slot.get(INT_LE, at(i, 4));
    }

    /** Writes {@code value} little-endian at {@code i}. */
    public void putI32Le(final int i, final int value) {
        slot.set(INT_LE, at(i, 4), value);
    }

    /** @return the big-endian 32-bit value at {@code i} */
    public int getI32Be(final int i) {
        return slot.get(INT_BE, at(i, 4));
    }

    /** Writes {@code value} big-endian at {@code i}. */
    public void putI32Be(final int i, final int value) {
        slot.set(INT_BE, at(i, 4), value);
    }

    /** @return the little-endian 64-bit value at {@code i} */
    public long getI64Le(final int i) {
        return slot.get(LONG_LE, at(i, 8));
    }

    /** Writes {@code value} little-endian at {@code i}. */
    public void putI64Le(final int i, final long value) {
        slot.set(LONG_LE, at(i, 8), value);
    }

    /** Copies {@code src} into the packet at {@code i}; the packet must already be long enough. */
    public void putBytes(final int i, final byte[] src) {
        MemorySegment.copy(src, 0, slot, ValueLayout.JAVA_BYTE, at(i, src.length), src.length);
    }

    /** Copies {@code dst.length} packet bytes starting at {@code i} into {@code dst}. */
    public void getBytes(final int i, final byte[] dst) {
        MemorySegment.copy(slot, ValueLayout.JAVA_BYTE, at(i, dst.length), dst, 0, dst.length);
    }

    private long at(final int i, final int size) {
        Objects.checkFromIndexSize(i, size, length);
        return (long) dataOffset + i;
    }

    private void store(final int newOffset, final int newLength) {
        // plain: the slot header travels to the next owner with the ring's release/acquire hand-off
        slot.set(ValueLayout.JAVA_INT, DATA_OFFSET_FIELD, newOffset);
        slot.set(ValueLayout.JAVA_INT, DATA_LENGTH_FIELD, newLength);
        dataOffset = newOffset;
        length = newLength;
    }
}
