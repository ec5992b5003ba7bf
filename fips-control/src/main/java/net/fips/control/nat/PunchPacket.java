package net.fips.control.nat;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/**
 * The 24-byte packets of a hole punch (discovery-gateway.md §2.5): a 4-byte magic ({@code NPTC} probe, {@code NPTA}
 * ack), a big-endian sequence number and the first 16 bytes of SHA-256 of the attempt's session id, so packets of
 * another attempt are ignored.
 *
 * @param ack      true for an ack, false for a probe
 * @param sequence the probe's round number (an ack echoes its probe's), unsigned 32 bits
 * @param hash     the 16-byte session hash
 */
public record PunchPacket(boolean ack, long sequence, byte[] hash) {

    /** {@code "NPTC"}: a probe. */
    public static final int PROBE_MAGIC = 0x4E505443;
    /** {@code "NPTA"}: an ack. */
    public static final int ACK_MAGIC = 0x4E505441;
    /** Bytes of a punch packet (a longer datagram parses; the rest is ignored). */
    public static final int BYTES = 24;
    /** Bytes of the session hash. */
    public static final int HASH_BYTES = 16;

    /**
     * @param ack      true for an ack
     * @param sequence unsigned 32 bits
     * @param hash     16 bytes
     */
    public PunchPacket {
        if (hash.length != HASH_BYTES) {
            throw new IllegalArgumentException("a punch session hash has 16 bytes, not " + hash.length);
        }
        if (sequence < 0 || sequence > 0xffff_ffffL) {
            throw new IllegalArgumentException("sequence " + sequence + " is not a u32");
        }
        hash = hash.clone();
    }

    /**
     * @param sessionId the attempt's session id as sent in the offer
     * @return the first 16 bytes of SHA-256 of its UTF-8 bytes
     */
    public static byte[] sessionHash(final String sessionId) {
        try {
            return Arrays.copyOf(MessageDigest.getInstance("SHA-256")
                    .digest(sessionId.getBytes(StandardCharsets.UTF_8)), HASH_BYTES);
        } catch (final NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /** @return a copy of the 16-byte session hash */
    @Override
    public byte[] hash() {
        return hash.clone();
    }

    /** @return the packet's 24 bytes */
    public byte[] encode() {
        final byte[] out = new byte[BYTES];
        putU32(out, 0, ack ? ACK_MAGIC : PROBE_MAGIC);
        putU32(out, 4, (int) sequence);
        System.arraycopy(hash, 0, out, 8, HASH_BYTES);
        return out;
    }

    /** @return the ack answering this probe: the same sequence and hash */
    public PunchPacket toAck() {
        return new PunchPacket(true, sequence, hash);
    }

    /** @return whether {@code hash} is this packet's session hash */
    public boolean belongsTo(final byte[] sessionHash) {
        return Arrays.equals(hash, sessionHash);
    }

    /**
     * @param datagram received bytes
     * @param length   how many were received
     * @return the packet, or null when it is not one (shorter than 24 bytes, another magic)
     */
    public static PunchPacket parse(final byte[] datagram, final int length) {
        if (Math.min(length, datagram.length) < BYTES) {
            return null;
        }
        final int magic = u32(datagram, 0);
        if (magic != PROBE_MAGIC && magic != ACK_MAGIC) {
            return null;
        }
        return new PunchPacket(magic == ACK_MAGIC, Integer.toUnsignedLong(u32(datagram, 4)),
                Arrays.copyOfRange(datagram, 8, 8 + HASH_BYTES));
    }

    /**
     * Whether the first four bytes of a datagram are a punch magic: every UDP transport drops such datagrams (a late
     * probe would otherwise read as FMP version 4), §2.6.
     *
     * @param first4 the datagram's first four bytes, big-endian
     * @return true for {@code NPTC} or {@code NPTA}
     */
    public static boolean isPunchMagic(final int first4) {
        return first4 == PROBE_MAGIC || first4 == ACK_MAGIC;
    }

    @Override
    public boolean equals(final Object o) {
        return o instanceof PunchPacket p && p.ack == ack && p.sequence == sequence && Arrays.equals(p.hash, hash);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(sequence) * 31 + Arrays.hashCode(hash) + (ack ? 1 : 0);
    }

    @Override
    public String toString() {
        return (ack ? "ack " : "probe ") + sequence;
    }

    private static int u32(final byte[] b, final int at) {
        return (b[at] & 0xff) << 24 | (b[at + 1] & 0xff) << 16 | (b[at + 2] & 0xff) << 8 | b[at + 3] & 0xff;
    }

    private static void putU32(final byte[] b, final int at, final int v) {
        b[at] = (byte) (v >>> 24);
        b[at + 1] = (byte) (v >>> 16);
        b[at + 2] = (byte) (v >>> 8);
        b[at + 3] = (byte) v;
    }
}
