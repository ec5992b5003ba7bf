package net.fips.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The AOT training run does what it is for: two nodes link over loopback and the synthetic packets all arrive. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DaemonTrainingTest {
    @Test
    void twoNodesLinkAndEverySyntheticPacketComesThrough() throws Exception {
        assertTrue(DaemonTraining.run());
    }
}
