package net.fips.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import net.fips.control.ctl.ControlJson;

/** {@code stats history --plot}: the sparkline fits the terminal's width. */
class StatsTablesTest {
    private static JsonNode series(final int n) {
        final ObjectNode d = ControlJson.MAPPER.createObjectNode().put("metric", "srtt_ms").put("unit", "ms")
                .put("granularity_seconds", 1);
        final ArrayNode values = d.putArray("values");
        for (int i = 0; i < n; i++) {
            values.add(i % 10 == 9 ? 100.0 : 1.0);
        }
        return d;
    }

    @Test
    void anHourOfSamplesFitsTheWidthInsteadOfOneColumnPerSample() {
        final String[] lines = StatsTables.plot("srtt_ms", series(3600), 80).split("\n");
        assertEquals(3, lines.length);
        assertEquals("srtt_ms (ms) — 3600 samples @ 1s = 3600s window, 78 columns", lines[0]);
        assertEquals(80, lines[2].length(), "two spaces of indent and 78 columns: " + lines[2].length());
        assertEquals(42, StatsTables.plot("srtt_ms", series(3600), 42).split("\n")[2].length());
        // What fits is drawn as before, one column per sample.
        final String[] small = StatsTables.plot("srtt_ms", series(20), 80).split("\n");
        assertEquals("srtt_ms (ms) — 20 samples @ 1s = 20s window", small[0]);
        assertEquals("  ▁▁▁▁▁▁▁▁▁█▁▁▁▁▁▁▁▁▁█", small[2]);
        assertTrue(StatsTables.history("srtt_ms", series(600), 30).split("\n")[2].length() <= 30);
    }

    @Test
    void bucketsAreMeansAndAllGapBucketsStayGaps() {
        final double nan = Double.NaN;
        final double[] v = {1, 3, nan, nan, 5, nan, 2, 2, 2};
        assertArrayEquals(new double[] {2, nan, 5, 2}, StatsTables.fit(v, 4), 1e-9);
        assertArrayEquals(v, StatsTables.fit(v, 9));
        assertEquals(1, StatsTables.fit(v, 1).length);
    }

    @Test
    void theWidthIsColumnsThenTheTerminalThenEighty() {
        assertEquals(132, StatsTables.columns("132", true, () -> 100));
        assertEquals(100, StatsTables.columns(null, true, () -> 100));
        assertEquals(100, StatsTables.columns("wide", true, () -> 100));
        assertEquals(80, StatsTables.columns(null, true, () -> 0), "the terminal cannot tell");
        assertEquals(80, StatsTables.columns("0", false, () -> 100), "a pipe: not asked");
        assertEquals(80, StatsTables.columns(null, false, () -> {
            throw new AssertionError("a pipe has no width to ask");
        }));
    }
}
