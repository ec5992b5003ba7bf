package net.fips.dataplane.engine;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import net.fips.dataplane.crypto.AeadCipher;
import net.fips.dataplane.crypto.ReplayWindow;

/**
 * One FMP link session (current, pending or previous, crypto-link.md §5.11): the index pair, both transport keys,
 * the receive replay window and the send counter. Built on the control thread, then owned by the link's worker.
 * The keys live off-heap (an automatic arena, so a dropped session's memory goes with it) and are wiped when the
 * session is dropped.
 */
final class LinkSession {
    final int ourIndex;
    final int theirIndex;
    final MemorySegment sendKey;
    final MemorySegment recvKey;
    final ReplayWindow replay = new ReplayWindow();
    /** Frames sealed so far; the next frame's counter. */
    long sendCounter;
    /** The session's start as the control plane also knows it (frame timestamps count from here). */
    long startNanos;

    LinkSession(final int ourIndex, final int theirIndex, final byte[] sendKey, final byte[] recvKey) {
        if (sendKey == null || sendKey.length != AeadCipher.KEY_BYTES || recvKey == null
                || recvKey.length != AeadCipher.KEY_BYTES) {
            throw new IllegalArgumentException("link keys must be " + AeadCipher.KEY_BYTES + " bytes each");
        }
        this.ourIndex = ourIndex;
        this.theirIndex = theirIndex;
        final MemorySegment keys = Arena.ofAuto().allocate(2L * AeadCipher.KEY_BYTES, 64);
        this.sendKey = keys.asSlice(0, AeadCipher.KEY_BYTES);
        this.recvKey = keys.asSlice(AeadCipher.KEY_BYTES, AeadCipher.KEY_BYTES);
        MemorySegment.copy(sendKey, 0, this.sendKey, ValueLayout.JAVA_BYTE, 0, sendKey.length);
        MemorySegment.copy(recvKey, 0, this.recvKey, ValueLayout.JAVA_BYTE, 0, recvKey.length);
    }

    /** Overwrites both keys: the session is gone. */
    void wipe() {
        sendKey.fill((byte) 0);
        recvKey.fill((byte) 0);
    }
}
