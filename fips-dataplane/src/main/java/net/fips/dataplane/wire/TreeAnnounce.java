package net.fips.dataplane.wire;

import java.lang.foreign.MemorySegment;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * TreeAnnounce link message (type 0x10), {@code 100 + 32n} bytes:
 * <pre>
 *  0    1    2               10               18           34               36                 36+32n
 *  | 10 | 01 | sequence u64   | timestamp u64  | parent(16) | ancestry_count | n × CoordEntry(32) | signature(64)
 * </pre>
 * There is no node_addr field: the declaring node is {@code ancestry[0]}. The signature is BIP-340 over SHA-256 of
 * the 48-byte {@link #signingBytes()} ({@code node_addr ‖ parent ‖ sequence LE ‖ timestamp LE}); the ancestry is not
 * signed. Decoding follows the reference: version must be 1, n ≥ 1, enough bytes for n entries and the signature,
 * trailing bytes ignored. Signature verification and {@link #semanticViolation()} are separate steps of the receiver.
 *
 * @param sequence  the sender's declaration sequence (u64)
 * @param timestamp the sender's declaration time, Unix seconds (u64)
 * @param parent    the declared parent (equal to ancestry[0] for a root)
 * @param ancestry  self first, root last (non-empty)
 * @param signature 64-byte BIP-340 signature
 */
public record TreeAnnounce(long sequence, long timestamp, NodeAddr parent, List<CoordEntry> ancestry,
        byte[] signature) {
    /** The only supported version byte. */
    public static final int VERSION = 0x01;
    /** Size without ancestry entries. */
    public static final int BASE_SIZE = 100;
    /** Signature size. */
    public static final int SIGNATURE_SIZE = 64;
    /** Size of the signed declaration. */
    public static final int SIGNING_BYTES_SIZE = 48;

    /** A semantic rule of the reference's {@code validate_semantics} that an announce breaks. */
    public enum Violation {
        /** A root declaration (parent == self) must carry exactly one ancestry entry. */
        ROOT_WITH_ANCESTORS,
        /** A non-root declaration needs at least itself and its parent. */
        ANCESTRY_TOO_SHORT,
        /** ancestry[1] must be the declared parent. */
        ANCESTRY_PARENT_MISMATCH,
        /** The last entry (advertised root) must be the smallest address in the ancestry. */
        ROOT_NOT_MINIMUM
    }

    /** Checks sizes and copies the collections. */
    public TreeAnnounce {
        Objects.requireNonNull(parent, "parent");
        ancestry = List.copyOf(ancestry);
        if (ancestry.isEmpty() || ancestry.size() > 0xFFFF) {
            throw new IllegalArgumentException("ancestry needs 1..65535 entries");
        }
        if (signature.length != SIGNATURE_SIZE) {
            throw new IllegalArgumentException("signature is 64 bytes");
        }
        signature = signature.clone();
    }

    /** A copy of the signature. */
    @Override
    public byte[] signature() {
        return signature.clone();
    }

    /** The declaring node, {@code ancestry[0].nodeAddr}. */
    public NodeAddr nodeAddr() {
        return ancestry.getFirst().nodeAddr();
    }

    /** True for a root declaration (parent == self). */
    public boolean isRoot() {
        return parent.equals(nodeAddr());
    }

    /** The advertised root (last ancestry entry). */
    public NodeAddr root() {
        return ancestry.getLast().nodeAddr();
    }

    /** Depth in the tree (0 for the root). */
    public int depth() {
        return ancestry.size() - 1;
    }

    /** The ancestry as an address-only coordinate. */
    public Coords coords() {
        return new Coords(ancestry.stream().map(CoordEntry::nodeAddr).toList());
    }

    /** The 48 signed bytes: {@code node_addr ‖ parent ‖ sequence u64 LE ‖ timestamp u64 LE}. */
    public byte[] signingBytes() {
        return signingBytes(nodeAddr(), parent, sequence, timestamp);
    }

    /** The signed bytes for a declaration (what the announcer signs before building the message). */
    public static byte[] signingBytes(final NodeAddr node, final NodeAddr parent, final long sequence,
            final long timestamp) {
        return new Writer(SIGNING_BYTES_SIZE).addr(node).addr(parent).u64(sequence).u64(timestamp).done();
    }

    /** SHA-256 of {@link #signingBytes()}: the 32-byte BIP-340 message. */
    public byte[] signingDigest() {
        try {
            return MessageDigest.getInstance("SHA-256").digest(signingBytes());
        } catch (final NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is mandatory in every JDK", e);
        }
    }

    /**
     * The first semantic rule this announce breaks, or empty when it is consistent. ancestry[0] being the declared
     * node holds by construction here, since the node is taken from it.
     */
    public Optional<Violation> semanticViolation() {
        if (isRoot()) {
            if (ancestry.size() != 1) {
                return Optional.of(Violation.ROOT_WITH_ANCESTORS);
            }
        } else if (ancestry.size() < 2) {
            return Optional.of(Violation.ANCESTRY_TOO_SHORT);
        } else if (!ancestry.get(1).nodeAddr().equals(parent)) {
            return Optional.of(Violation.ANCESTRY_PARENT_MISMATCH);
        }
        final NodeAddr root = root();
        for (final CoordEntry e : ancestry) {
            if (e.nodeAddr().compareTo(root) < 0) {
                return Optional.of(Violation.ROOT_NOT_MINIMUM);
            }
        }
        return Optional.empty();
    }

    /** Encoded size. */
    public int encodedSize() {
        return BASE_SIZE + CoordEntry.SIZE * ancestry.size();
    }

    /** The link message including msg_type. */
    public byte[] encode() {
        final Writer w = new Writer(encodedSize()).u8(LinkMessageType.TREE_ANNOUNCE.code()).u8(VERSION)
                .u64(sequence).u64(timestamp).addr(parent).u16(ancestry.size());
        for (final CoordEntry e : ancestry) {
            w.addr(e.nodeAddr()).u64(e.sequence()).u64(e.timestamp());
        }
        return w.bytes(signature).done();
    }

    /** Decodes a link message starting at its msg_type byte. */
    public static WireResult<TreeAnnounce> decode(final MemorySegment seg, final long off, final long len) {
        return Reader.run(seg, off, len, r -> {
            Links.expectType(r, LinkMessageType.TREE_ANNOUNCE);
            r.need(BASE_SIZE - 1);
            if (r.u8() != VERSION) {
                throw WireException.of(WireError.BAD_VERSION);
            }
            final long seq = r.u64();
            final long ts = r.u64();
            final NodeAddr parent = r.addr();
            final int count = r.u16();
            r.need((long) count * CoordEntry.SIZE + SIGNATURE_SIZE);
            if (count == 0) {
                throw WireException.of(WireError.EMPTY_COORDINATES);
            }
            final List<CoordEntry> entries = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                entries.add(new CoordEntry(r.addr(), r.u64(), r.u64()));
            }
            return new TreeAnnounce(seq, ts, parent, entries, r.bytes(SIGNATURE_SIZE));
        });
    }

    /** As {@link #decode(MemorySegment, long, long)} over a byte array. */
    public static WireResult<TreeAnnounce> decode(final byte[] b, final int off, final int len) {
        return decode(MemorySegment.ofArray(b), off, len);
    }

    @Override
    public boolean equals(final Object o) {
        return o instanceof TreeAnnounce t && t.sequence == sequence && t.timestamp == timestamp
                && t.parent.equals(parent) && t.ancestry.equals(ancestry) && Arrays.equals(t.signature, signature);
    }

    @Override
    public int hashCode() {
        return Objects.hash(sequence, timestamp, parent, ancestry) * 31 + Arrays.hashCode(signature);
    }

    @Override
    public String toString() {
        return "TreeAnnounce[node=" + nodeAddr() + ", parent=" + parent + ", sequence="
                + Long.toUnsignedString(sequence) + ", timestamp=" + Long.toUnsignedString(timestamp) + ", depth="
                + depth() + ", root=" + root() + "]";
    }
}
