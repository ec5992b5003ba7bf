package net.fips.dataplane.engine;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import net.fips.dataplane.crypto.AeadCipher;
import net.fips.dataplane.pool.PacketPool;
import net.fips.dataplane.wire.FspFlags;
import net.fips.dataplane.wire.FspHeader;

/**
 * The FSP crypto of one worker's sessions (routing-session.md §5.6, §5.7): seal a message in place with the
 * session's current keys (the 12-byte FSP header as associated data), open one by trial over the key generations,
 * and promote pending keys at a cutover. Returns what happened; the session path counts and drops. Single-threaded:
 * owned by its worker's {@link SessionPath}.
 */
final class FspCrypto {
    private static final int FSP = FspHeader.SIZE;

    private final AeadCipher cipher;
    private final MemorySegment nonce;
    private final MemorySegment trialCopy;
    /** Set by {@link #open} when it fails: whether a key refused the counter as a replay. */
    private boolean openFailedOnReplay;

    FspCrypto(final AeadCipher cipher, final PacketPool pool, final Arena arena) {
        this.cipher = cipher;
        this.nonce = arena.allocate(AeadCipher.NONCE_BYTES, 8);
        this.trialCopy = arena.allocate(pool.slotStrideBytes(), 64);
    }

    /**
     * Writes the FSP header at {@code header} and seals the plaintext at {@code inner} in place (tag after
     * it).
     *
     * @return false when the send counter is spent (nothing written)
     */
    boolean seal(final FspSession s, final MemorySegment seg, final long header, final int flags,
                 final long inner, final int plainLen) {
        final LinkSession gen = s.current;
        final long counter = gen.sendCounter;
        if (counter == -1L) {
            return false;
        }
        gen.sendCounter = counter + 1;
        FspHeader.write(seg, header, flags, plainLen, counter);
        AeadCipher.fipsNonce(nonce, counter);
        cipher.seal(gen.sendKey, nonce, seg, header, FSP, seg, inner, plainLen);
        return true;
    }

    /**
     * Trial decryption (§5.7): pending, previous, then current when the K bit differs from ours; current first
     * otherwise. The ciphertext is saved before an attempt that may be followed by another (only around a rekey),
     * or before any attempt when {@code keep}: then a failure leaves it intact.
     *
     * @return the generation that authenticated it, or null ({@link #lastFailureWasReplay()} says why; not counted)
     */
    LinkSession open(final FspSession s, final MemorySegment seg, final long header, final long ct,
                     final int ctLen, final long counter, final int kFlag, final boolean keep) {
        final LinkSession a;
        final LinkSession b;
        final LinkSession c;
        if (kFlag != s.kFlag) {
            a = s.pending;
            b = s.previous;
            c = s.current;
        } else {
            a = s.current;
            b = s.pending;
            c = s.previous;
        }
        final int candidates = (a != null ? 1 : 0) + (b != null ? 1 : 0) + (c != null ? 1 : 0);
        if (candidates > 1 || keep) {
            MemorySegment.copy(seg, ct, trialCopy, 0, ctLen);
        }
        int left = candidates;
        boolean replayed = false;
        for (int i = 0; i < 3; i++) {
            final LinkSession g = i == 0 ? a : i == 1 ? b : c;
            if (g == null) {
                continue;
            }
            left--;
            if (!g.replay.check(counter)) {
                replayed = true;
                continue;
            }
            AeadCipher.fipsNonce(nonce, counter);
            if (cipher.open(g.recvKey, nonce, seg, header, FSP, seg, ct, ctLen) >= 0) {
                g.replay.accept(counter);
                return g;
            }
            if (left > 0 || keep) {
                MemorySegment.copy(trialCopy, 0, seg, ct, ctLen);
            }
        }
        openFailedOnReplay = replayed;
        return null;
    }

    /** @return whether the last failed {@link #open} met a replay (counted as such, not as an auth failure) */
    boolean lastFailureWasReplay() {
        return openFailedOnReplay;
    }

    /** Pending becomes current (K flips, counter and timestamps restart); current becomes previous. */
    static void promote(final FspSession s, final long startNanos) {
        final LinkSession pending = s.pending;
        if (s.previous != null) {
            s.previous.wipe();
        }
        s.previous = s.current;
        s.current = pending;
        s.pending = null;
        s.kFlag ^= FspFlags.K;
        pending.startNanos = startNanos;
        pending.sendCounter = 0;
        s.mmp.resetForRekey(startNanos);
        s.publish();
    }
}
