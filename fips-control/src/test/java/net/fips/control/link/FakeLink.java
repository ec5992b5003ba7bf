package net.fips.control.link;

import java.lang.foreign.MemorySegment;

import net.fips.dataplane.LinkSpec;
import net.fips.dataplane.LinkStats;
import net.fips.dataplane.MmpReceiver;
import net.fips.dataplane.crypto.ReplayWindow;
import net.fips.dataplane.transport.TransportAddr;

/** A link in one of the {@link PairedDataPlanes}: its key epochs (current, pending, previous) and figures. */
final class FakeLink implements LinkStats {
    /** One key epoch's keys, indices, counter and replay window. */
    static final class KeyEpoch {
        final int ourIndex;
        final int theirIndex;
        final MemorySegment sendKey;
        final MemorySegment recvKey;
        final ReplayWindow window = new ReplayWindow();
        long sendCounter;

        KeyEpoch(final int ourIndex, final int theirIndex, final byte[] sendKey, final byte[] recvKey) {
            this.ourIndex = ourIndex;
            this.theirIndex = theirIndex;
            this.sendKey = MemorySegment.ofArray(sendKey.clone());
            this.recvKey = MemorySegment.ofArray(recvKey.clone());
        }
    }

    final long linkId;
    final int transportId;
    TransportAddr remote;
    KeyEpoch current;
    KeyEpoch pending;
    KeyEpoch previous;
    int k;
    long keyEpochStart;
    long lastAuth;
    long packetsIn;
    long bytesIn;
    long packetsOut;
    long bytesOut;
    long dropsIn;
    long replayDrops;
    int consecutiveFailures;

    FakeLink(final LinkSpec spec, final long now) {
        this.linkId = spec.linkId();
        this.transportId = spec.transportId();
        this.remote = spec.remote();
        this.current = new KeyEpoch(spec.ourIndex(), spec.theirIndex(), spec.sendKey(), spec.recvKey());
        this.keyEpochStart = spec.sessionStartNanos();
        this.lastAuth = now;
    }

    @Override
    public long lastAuthenticatedNanos() {
        return lastAuth;
    }

    @Override
    public long sendCounter() {
        return current.sendCounter;
    }

    @Override
    public int keyEpochBit() {
        return k;
    }

    @Override
    public long packetsIn() {
        return packetsIn;
    }

    @Override
    public long bytesIn() {
        return bytesIn;
    }

    @Override
    public long packetsOut() {
        return packetsOut;
    }

    @Override
    public long bytesOut() {
        return bytesOut;
    }

    @Override
    public long highestCounterIn() {
        return current.window.highest();
    }

    @Override
    public long dropsIn() {
        return dropsIn;
    }

    @Override
    public long replayDrops() {
        return replayDrops;
    }

    @Override
    public int consecutiveDecryptFailures() {
        return consecutiveFailures;
    }

    /** Fed with every current-session frame, as the real worker does. */
    final MmpReceiver mmp = new MmpReceiver();

    @Override
    public MmpReceiver receiver() {
        return mmp;
    }
}
