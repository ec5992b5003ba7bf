package net.fips.control.ctl;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

/**
 * The short history series {@code show_status.sparklines} carries (the reference sends the last 30 one-second
 * samples, oldest first). A gap is {@code null}; NaN is turned into {@code null} here because JSON has no NaN.
 *
 * @param meshSize  estimated mesh size
 * @param treeDepth our depth in the spanning tree
 * @param peerCount authenticated peers
 * @param bytesIn   bytes received per sample
 * @param bytesOut  bytes sent per sample
 * @param lossRate  aggregate link loss rate
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record Sparklines(List<Double> meshSize, List<Double> treeDepth, List<Double> peerCount,
                         List<Double> bytesIn, List<Double> bytesOut, List<Double> lossRate) {

    /** Every series empty, as a node that has not ticked yet reports. */
    public static final Sparklines EMPTY =
            new Sparklines(List.of(), List.of(), List.of(), List.of(), List.of(), List.of());

    /** Copies each series, mapping NaN and infinities to {@code null}. */
    public Sparklines {
        meshSize = clean(meshSize);
        treeDepth = clean(treeDepth);
        peerCount = clean(peerCount);
        bytesIn = clean(bytesIn);
        bytesOut = clean(bytesOut);
        lossRate = clean(lossRate);
    }

    private static List<Double> clean(final List<Double> series) {
        if (series == null) {
            return List.of();
        }
        // List.copyOf rejects nulls, and gaps are legitimately null.
        final List<Double> out = new ArrayList<>(series.size());
        for (final Double v : series) {
            out.add(v == null || v.isNaN() || v.isInfinite() ? null : v);
        }
        return Collections.unmodifiableList(out);
    }
}
