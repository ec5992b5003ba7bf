package net.fips.cli;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import net.fips.dataplane.tun.StandInTcpStream;

/**
 * The AOT training run does what it is for: two nodes link over loopback, and a TCP stream's super-segments go in
 * through the first node's TUN stand-in, through the session to the second, come out of its device coalesced, and
 * the ACKs come back (so the TUN reader, offload split, coalescer and writer ran, not only the session path).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DaemonTrainingTest {
    @Test
    void twoNodesLinkAndAStreamCrossesBothTunStandIns() throws Exception {
        final StandInTcpStream.Result r =
                DaemonTraining.run(TimeUnit.SECONDS.toNanos(3), TimeUnit.SECONDS.toNanos(6));
        assertNotNull(r, "the nodes did not link");
        assertTrue(DaemonTraining.succeeded(r), r::toString);
        assertTrue(r.bytesIn() <= r.bytesOffered(), r::toString);
        // tun.offload: auto (the default): the receiver's coalescer wrote super-segments, the sender's reader split
        // them (every segment is at most one MTU on the wire, so a delivered super-segment was coalesced again)
        assertTrue(r.coalescedIn() > 0, r::toString);
        assertTrue(r.acksIn() > 0, r::toString);
        // the pings beside the stream went through both sessions and were answered
        assertTrue(r.echoRepliesIn() > 0, r::toString);
    }

    @Test
    void theStreamCountsAsSettledOnlyWhenItsLastSlicesAgree() {
        final long[] rising = {1, 2, 4, 8, 16, 32};
        assertFalse(DaemonTraining.settled(rising, rising.length));
        final long[] flat = {1, 2, 100, 110, 105, 100};
        assertTrue(DaemonTraining.settled(flat, flat.length));
        assertFalse(DaemonTraining.settled(flat, 5), "slices 2-5 spread 2 to 110");
        assertFalse(DaemonTraining.settled(new long[] {0, 0, 0, 0}, 4), "nothing moved");
        assertFalse(DaemonTraining.settled(flat, 3), "fewer slices than needed");
    }
}
