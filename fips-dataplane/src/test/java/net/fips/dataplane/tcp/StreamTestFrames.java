package net.fips.dataplane.tcp;

import static net.fips.testing.Await.spinUntil;

import java.time.Duration;

import net.fips.dataplane.DataPlaneEvent;
import net.fips.dataplane.engine.DataPlane;

/** What the tests of the stream transports (TCP, and Nym over it) send and wait for: handshake-shaped frames. */
public final class StreamTestFrames {
    private StreamTestFrames() {
    }

    /** @return a handshake message of {@code phase} 1 (114 bytes) or 2 (69 bytes) as the FMP stream frames it */
    public static byte[] msg(final int phase) {
        final int total = phase == 1 ? 114 : 69;
        final byte[] p = new byte[total];
        p[0] = (byte) phase;
        p[2] = (byte) (total - 4);
        p[10] = (byte) phase;
        return p;
    }

    /** @return a 32-byte key derived from {@code seed} */
    public static byte[] key(final int seed) {
        final byte[] k = new byte[32];
        for (int i = 0; i < 32; i++) {
            k[i] = (byte) (seed * 31 + i);
        }
        return k;
    }

    /**
     * Drains {@code dp}'s events until a handshake arrived.
     *
     * @return the last handshake event seen
     * @throws AssertionError when none arrives within {@code deadline}
     */
    public static DataPlaneEvent.HandshakeReceived awaitHandshake(final DataPlane dp, final Duration deadline) {
        final DataPlaneEvent.HandshakeReceived[] got = {null};
        spinUntil(deadline, () -> {
            DataPlaneEvent e;
            while ((e = dp.pollEvent()) != null) {
                if (e instanceof DataPlaneEvent.HandshakeReceived h) {
                    got[0] = h;
                }
            }
            return got[0] != null;
        }, () -> "a handshake event");
        return got[0];
    }
}
