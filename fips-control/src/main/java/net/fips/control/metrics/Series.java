package net.fips.control.metrics;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * One answer of the stats history: consecutive samples, oldest first, the newest being the last completed
 * sample. A gap (not measured, peer absent, before the history began) is NaN here and {@code null} on the wire.
 *
 * @param metric             the metric's wire name
 * @param unit               its unit
 * @param granularitySeconds seconds per sample (1 or 60)
 * @param values             the samples; the array is owned by this record, do not modify it
 */
public record Series(String metric, String unit, int granularitySeconds, double[] values) {

    /** Checks the parts. */
    public Series {
        Objects.requireNonNull(metric, "metric");
        Objects.requireNonNull(unit, "unit");
        Objects.requireNonNull(values, "values");
    }

    /** @return the samples with gaps as {@code null}, as JSON carries them */
    public List<Double> valuesOrNull() {
        final List<Double> out = new ArrayList<>(values.length);
        for (final double v : values) {
            out.add(Double.isFinite(v) ? v : null);
        }
        return Collections.unmodifiableList(out);
    }

    /** @return how many samples are gaps */
    public int gaps() {
        int n = 0;
        for (final double v : values) {
            if (!Double.isFinite(v)) {
                n++;
            }
        }
        return n;
    }
}
