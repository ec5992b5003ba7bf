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
    @Test
    void runsItsRoundsAndLogsOnce() {
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
            new PathWarmup(40, System::nanoTime).run();
        } finally {
            log.removeHandler(h);
        }
        assertEquals(1, lines.size(), lines.toString());
        assertTrue(lines.getFirst().startsWith("data path warm-up: 240 synthetic packets"), lines.getFirst());
        assertTrue(lines.getFirst().contains("(40 rounds of 40)"), lines.getFirst());
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
