package net.fips.dataplane.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import net.fips.dataplane.crypto.AeadCiphers;

/** The synthetic traffic really crosses both data planes' session paths, sealed and opened, and nothing is lost. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PathExerciseTest {
    @Test
    void everyOfferedPacketIsSealedSentOpenedAndDelivered() throws Exception {
        try (PathExercise ex = PathExercise.open(AeadCiphers::create)) {
            final int rounds = 100;
            final long packets = 2L * PathExercise.PACKETS_PER_ROUND * rounds;
            assertEquals(packets, ex.run(rounds));
            assertEquals(0, ex.lost());
            assertEquals(packets, ex.counter(DataPlaneCounter.SESSION_PACKETS_OUT));
            assertEquals(packets, ex.counter(DataPlaneCounter.SESSION_PACKETS_IN));
            // Each session packet went over the link as one authenticated FMP frame, nothing was dropped.
            // Each one went over the link as one authenticated FMP frame (besides the sessions' own messages).
            assertEquals(packets + ex.counter(DataPlaneCounter.SESSION_MESSAGES_OUT),
                    ex.counter(DataPlaneCounter.FRAMES_IN));
            assertEquals(0, ex.counter(DataPlaneCounter.DROP_AUTH_FAILED)
                    + ex.counter(DataPlaneCounter.DROP_SESSION_AUTH_FAILED)
                    + ex.counter(DataPlaneCounter.DROP_SESSION_NO_ROUTE));
            // A second call goes on where the first stopped.
            assertEquals(2L * PathExercise.PACKETS_PER_ROUND, ex.run(1));
        }
    }
}
