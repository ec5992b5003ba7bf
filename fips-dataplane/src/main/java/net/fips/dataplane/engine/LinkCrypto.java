package net.fips.dataplane.engine;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import net.fips.dataplane.DataPlaneEvent;
import net.fips.dataplane.crypto.AeadCipher;
import net.fips.dataplane.pool.PacketPool;
import net.fips.dataplane.pool.PacketView;
import net.fips.dataplane.transport.Transport;
import net.fips.dataplane.wire.FmpEstablishedHeader;
import net.fips.dataplane.wire.FmpInnerHeader;

/**
 * The link-layer crypto of one worker (crypto-link.md §5.4, §5.11), over the links pinned to it: open an
 * established frame in place (K-bit trial against the pending session with immediate cutover, else the session
 * the index names, replay window first), seal a link message in place, and the key lifecycle (install pending,
 * cutover, forget). It returns what happened and leaves the slot, the drop counters and the sending to the worker.
 * Single-threaded, like the links: owned by its worker.
 */
final class LinkCrypto {
    /** {@link #open}: no session of the link has the frame's receiver index. */
    static final int NO_SESSION = -1;
    /** {@link #open}: the frame did not authenticate (or was meant for the pending session without the K flip). */
    static final int AUTH_FAILED = -2;
    /** {@link #open}: the replay window refused the counter. */
    static final int REPLAY = -3;
    /** {@link #seal}: the framed message does not fit the transport's MTU or the slot. */
    static final int TOO_BIG = -1;
    /** {@link #seal}: the session's send counter is spent. */
    static final int COUNTER_EXHAUSTED = -2;

    private static final long NANOS_PER_MILLI = 1_000_000L;
    private static final int HEADER = FmpEstablishedHeader.SIZE;
    private static final int TAG = AeadCipher.TAG_BYTES;
    private static final int TIMESTAMP = FmpInnerHeader.MSG_TYPE_OFFSET;

    private final AeadCipher cipher;
    private final PacketView view;
    private final IndexTableHolder table;
    private final EventQueue events;
    private final Counters counters;
    private final CycleClock clock;
    /** Per transport: its MTU (read once: the transport's MTU is fixed). */
    private final int[] transportMtu;
    private final MemorySegment nonce;
    private final MemorySegment trialCopy;

    LinkCrypto(final AeadCipher cipher, final PacketPool pool, final Transport[] transports,
               final IndexTableHolder table, final EventQueue events, final Counters counters,
               final CycleClock clock, final Arena arena) {
        this.cipher = cipher;
        this.view = pool.newView();
        this.table = table;
        this.events = events;
        this.counters = counters;
        this.clock = clock;
        this.transportMtu = new int[transports.length];
        for (int t = 0; t < transports.length; t++) {
            transportMtu[t] = transports[t].mtu();
        }
        this.nonce = arena.allocate(AeadCipher.NONCE_BYTES, 8);
        this.trialCopy = arena.allocate(pool.slotStrideBytes(), 64);
    }

    /** @return the MTU of the link's transport */
    int mtu(final Link link) {
        return transportMtu[link.transportId];
    }

    /** Whether a link message of {@code messageLength} bytes, framed (header, timestamp, tag), fits the link's MTU. */
    boolean frameFits(final Link link, final int messageLength) {
        return HEADER + TIMESTAMP + messageLength + TAG <= transportMtu[link.transportId];
    }

    // ------------------------------------------------------------------ open

    /**
     * Opens the established frame at {@code seg[off, off+len)} in place. A frame the pending session opens (K bit
     * flipped, or addressed to the pending index: ADR 0063) cuts the link over at once: the data plane picks this
     * cutover's instant and reports it in a {@link DataPlaneEvent.CutOver}, which the control plane adopts.
     *
     * @return the plaintext length (the counter accepted), or {@link #NO_SESSION}, {@link #AUTH_FAILED} or
     *         {@link #REPLAY} (nothing counted)
     */
    int open(final Link link, final MemorySegment seg, final long off, final int len, final int flags,
             final int receiverIdx, final long counter) {
        final int kBit = flags & FmpEstablishedHeader.FLAG_KEY_EPOCH;
        // The reference trials the pending session only on a K flip. Our K bits and the peer's need not agree
        // (a reconnect through the rekey path leaves them apart, crypto-link.md §5.11); the peer's first frames under
        // the new keys then carry our K bit, and without the trial every one of them fails authentication, twenty
        // in a row remove the link, and the reconnect diverges the bits again. A frame addressed to the pending
        // index is tried against the pending session whatever its K bit (ADR 0063).
        if (link.pending != null && (kBit != link.kBit || receiverIdx == link.pending.ourIndex)) {
            final int plaintext = trialPending(link.pending, seg, off, len, counter);
            if (plaintext >= 0) {
                final long start = clock.now();
                cutover(link, start);
                counters.increment(DataPlaneCounter.KBIT_CUTOVERS);
                events.offer(new DataPlaneEvent.CutOver(link.linkId, link.current.ourIndex, start));
                return plaintext;
            }
            // Not the pending session's frame (a stale pending, crypto-link.md §5.11): decrypt normally.
        }
        final LinkSession session = sessionFor(link, receiverIdx);
        if (session == null) {
            // Addressed to the pending session, which the trial above could not authenticate it with.
            return link.pending != null && receiverIdx == link.pending.ourIndex ? AUTH_FAILED : NO_SESSION;
        }
        if (!session.replay.check(counter)) {
            return REPLAY;
        }
        AeadCipher.fipsNonce(nonce, counter);
        final int plaintext = cipher.open(session.recvKey, nonce, seg, off, HEADER, seg, off + HEADER, len - HEADER);
        if (plaintext < 0) {
            return AUTH_FAILED;
        }
        session.replay.accept(counter);
        return plaintext;
    }

    private static LinkSession sessionFor(final Link link, final int receiverIdx) {
        final LinkSession current = link.current;
        if (receiverIdx == current.ourIndex) {
            return current;
        }
        final LinkSession previous = link.previous;
        return previous != null && receiverIdx == previous.ourIndex ? previous : null;
    }

    /**
     * Opens the frame with the pending session. The open works in place and may leave garbage on failure, so the
     * ciphertext is saved first and restored for the normal path; this costs a copy only around a rekey.
     *
     * @return the plaintext length, or -1
     */
    private int trialPending(final LinkSession pending, final MemorySegment seg, final long off, final int len,
                             final long counter) {
        if (!pending.replay.check(counter)) {
            return -1;
        }
        final int ciphertext = len - HEADER;
        MemorySegment.copy(seg, off + HEADER, trialCopy, 0, ciphertext);
        AeadCipher.fipsNonce(nonce, counter);
        final int plaintext = cipher.open(pending.recvKey, nonce, seg, off, HEADER, seg, off + HEADER, ciphertext);
        if (plaintext < 0) {
            MemorySegment.copy(trialCopy, 0, seg, off + HEADER, ciphertext);
            return -1;
        }
        pending.replay.accept(counter);
        return plaintext;
    }

    // ------------------------------------------------------------------ seal

    /**
     * Frames the link message that is the data of {@code slot} in place: the FMP header and the inner timestamp in
     * the headroom, sealed with the link's current session (the header as associated data), the tag appended.
     *
     * @param extraFlags FMP flags to set besides the K bit (CE on a forward)
     * @return the frame length, or {@link #TOO_BIG} or {@link #COUNTER_EXHAUSTED} (the slot untouched, nothing
     *         counted)
     */
    int seal(final Link link, final int slot, final int extraFlags) {
        final PacketView view = this.view.wrap(slot);
        final LinkSession session = link.current;
        final int messageLength = view.length();
        if (!frameFits(link, messageLength) || view.tailroom() < TAG || !view.ensureHeadroom(HEADER + TIMESTAMP)) {
            return TOO_BIG;
        }
        final long counter = session.sendCounter;
        if (counter == -1L) {
            return COUNTER_EXHAUSTED;
        }
        session.sendCounter = counter + 1;
        view.prepend(HEADER + TIMESTAMP);
        final MemorySegment seg = view.slotSegment();
        final long off = view.dataOffset();
        final int timestampMs = (int) ((clock.now() - session.startNanos) / NANOS_PER_MILLI);
        seg.set(Layouts.U32, off + HEADER, timestampMs);
        FmpEstablishedHeader.write(seg, off, link.kBit | extraFlags, TIMESTAMP + messageLength, session.theirIndex,
                counter);
        AeadCipher.fipsNonce(nonce, counter);
        cipher.seal(session.sendKey, nonce, seg, off, HEADER, seg, off + HEADER, TIMESTAMP + messageLength);
        view.append(TAG);
        return HEADER + TIMESTAMP + messageLength + TAG;
    }

    // ------------------------------------------------------------------ key lifecycle

    /**
     * The link's new pending session (a rekey's keys); one it replaces is forgotten. Without the link (it went
     * away first) the index the control thread registered is taken back.
     */
    void installPending(final Link link, final long linkId, final int transportId, final LinkSession session) {
        if (link == null) {
            table.remove(IndexTable.key(transportId, session.ourIndex), linkId);
            session.wipe();
            return;
        }
        if (link.pending != null && link.pending.ourIndex != session.ourIndex) {
            forget(link, link.pending);
        }
        link.pending = session;
    }

    /**
     * Cutover (crypto-link.md §5.11): current becomes previous (still receiving), pending becomes current, the K
     * bit toggles, the counter restarts and timestamps count from {@code sessionStartNanos}. A previous session
     * still draining is dropped now. Nothing happens without a pending session.
     */
    void cutover(final Link link, final long sessionStartNanos) {
        final LinkSession pending = link.pending;
        if (pending == null) {
            return;
        }
        if (link.previous != null) {
            forget(link, link.previous);
        }
        link.previous = link.current;
        link.current = pending;
        link.pending = null;
        link.kBit ^= FmpEstablishedHeader.FLAG_KEY_EPOCH;
        pending.startNanos = sessionStartNanos;
        pending.sendCounter = 0;
        link.mmp.resetForRekey(sessionStartNanos);
        link.publishSession();
    }

    /** The link's previous session stops receiving. */
    void dropPrevious(final Link link) {
        if (link.previous != null) {
            forget(link, link.previous);
            link.previous = null;
        }
    }

    /** Unregisters the session's index (while it still maps to the link) and wipes its keys. */
    void forget(final Link link, final LinkSession session) {
        table.remove(IndexTable.key(link.transportId, session.ourIndex), link.linkId);
        session.wipe();
    }

    /** Forgets every session of the link (it is removed, or the worker closes). */
    void forgetAll(final Link link) {
        if (link.pending != null) {
            forget(link, link.pending);
        }
        if (link.previous != null) {
            forget(link, link.previous);
        }
        forget(link, link.current);
    }

    /** Frees the cipher's native state (worker shutdown). */
    void close() {
        cipher.close();
    }
}
