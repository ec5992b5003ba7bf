package net.fips.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The daemon's warm-up runs the rounds it is given through the real session path and says so in one line. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PathWarmupTest {
    /** Runs {@code w} and returns the lines it logged on the daemon's logger. */
    private static List<String> logged(final PathWarmup w) {
        final List<String> lines = new ArrayList<>();
        final Handler h = new Handler() {
            @Override
            public void publish(final LogRecord r) {
                lines.add(r.getMessage());
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        final Logger log = Logger.getLogger(FipsDaemon.class.getName());
        log.addHandler(h);
        try {
            w.run();
        } finally {
            log.removeHandler(h);
        }
        return lines;
    }

    @Test
    void runsItsRoundsAndLogsOnce() {
        final List<String> lines = logged(new PathWarmup(40, System::nanoTime, () -> false));
        assertEquals(1, lines.size(), lines.toString());
        assertTrue(lines.getFirst().startsWith("data path warm-up: 240 synthetic packets"), lines.getFirst());
        assertTrue(lines.getFirst().endsWith("(40 rounds of 40)"), lines.getFirst());
    }

    @Test
    void realTrafficStopsItBetweenSlices() {
        final int[] polls = {0};
        // Traffic shows up at the second poll: one slice ran.
        final List<String> lines = logged(new PathWarmup(1000, System::nanoTime, () -> ++polls[0] >= 2));
        assertEquals(1, lines.size(), lines.toString());
        assertTrue(lines.getFirst().startsWith("data path warm-up: 150 synthetic packets"), lines.getFirst());
        assertTrue(lines.getFirst().endsWith("(25 rounds of 1000; stopped early by real traffic)"), lines.getFirst());
    }

    @Test
    void theRoundsComeFromTheSystemPropertyAndZeroTurnsItOff() {
        final String was = System.getProperty(PathWarmup.PROPERTY);
        try {
            System.clearProperty(PathWarmup.PROPERTY);
            assertEquals(PathWarmup.ROUNDS_DEFAULT, PathWarmup.configuredRounds());
            System.setProperty(PathWarmup.PROPERTY, "0");
            assertEquals(0, PathWarmup.configuredRounds());
            System.setProperty(PathWarmup.PROPERTY, " 123 ");
            assertEquals(123, PathWarmup.configuredRounds());
            System.setProperty(PathWarmup.PROPERTY, "lots");
            assertEquals(PathWarmup.ROUNDS_DEFAULT, PathWarmup.configuredRounds());
        } finally {
            if (was == null) {
                System.clearProperty(PathWarmup.PROPERTY);
            } else {
                System.setProperty(PathWarmup.PROPERTY, was);
            }
        }
    }
}
