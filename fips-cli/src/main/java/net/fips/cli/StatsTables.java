package net.fips.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import com.fasterxml.jackson.databind.JsonNode;

/** Text renderings of the {@code stats} responses: tables on a terminal, and the reference's {@code --plot}. */
final class StatsTables {
    private static final char[] BLOCKS = {'▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'};
    /** Newest samples listed under the sparkline in the terminal view. */
    private static final int TAIL_ROWS = 10;

    private StatsTables() {
    }

    static String list(final JsonNode d) {
        final List<String[]> rows = new ArrayList<>();
        for (final JsonNode m : d.path("metrics")) {
            rows.add(new String[] {TableView.text(m.get("name")), TableView.text(m.get("scope")),
                TableView.text(m.get("unit"))});
        }
        return TableView.table(new String[] {"METRIC", "SCOPE", "UNIT"}, rows) + "rings: "
                + TableView.text(d.get("fast_ring_seconds")) + " x 1 s, " + TableView.text(d.get("slow_ring_minutes"))
                + " x 1 min; peers kept " + TableView.text(d.get("peer_retention_seconds")) + " s after last contact";
    }

    static String metrics(final JsonNode d) {
        final StringBuilder sb = new StringBuilder();
        for (final var e : d.properties()) {
            sb.append(e.getKey()).append(": ").append(TableView.pairs(e.getValue())).append('\n');
        }
        return sb.toString().stripTrailing();
    }

    static String peers(final JsonNode d) {
        final List<String[]> rows = new ArrayList<>();
        for (final JsonNode p : d.path("peers")) {
            rows.add(new String[] {TableView.text(p.get("display_name")), TableView.text(p.get("npub")),
                p.path("is_active").asBoolean() ? "yes" : "no", TableView.text(p.get("first_seen_secs_ago")),
                TableView.text(p.get("last_contact_secs_ago"))});
        }
        return rows.isEmpty() ? "(no peers tracked)" : TableView.table(new String[] {"NAME", "NPUB", "ACTIVE",
            "FIRST_SEEN_S_AGO", "LAST_CONTACT_S_AGO"}, rows).stripTrailing();
    }

    /** The terminal view: the plot's three lines, then the newest samples with their age. */
    static String history(final String metric, final JsonNode d) {
        final double[] v = values(d);
        if (v.length == 0) {
            return plot(metric, d);
        }
        final long g = d.path("granularity_seconds").asLong(1);
        final List<String[]> rows = new ArrayList<>();
        for (int i = Math.max(0, v.length - TAIL_ROWS); i < v.length; i++) {
            rows.add(new String[] {"-" + (v.length - 1 - i) * g + "s", Double.isNaN(v[i]) ? "-" : format(v[i])});
        }
        return plot(metric, d) + "\n\n" + TableView.table(new String[] {"AGE", "VALUE"}, rows).stripTrailing()
                + "\n(all samples: --json)";
    }

    /**
     * The reference's {@code --plot}: {@code metric (unit) — N samples @ Gs = Ws window (k gaps)}, then
     * {@code min=… max=… last=…}, then the sparkline with blanks for gaps.
     */
    static String plot(final String metric, final JsonNode d) {
        final double[] v = values(d);
        if (v.length == 0) {
            return metric + ": no data yet";
        }
        final String unit = d.path("unit").asText("");
        final long g = d.path("granularity_seconds").asLong(1);
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        int gaps = 0;
        double last = Double.NaN;
        for (final double x : v) {
            if (Double.isNaN(x)) {
                gaps++;
            } else {
                min = Math.min(min, x);
                max = Math.max(max, x);
                last = x;
            }
        }
        if (!Double.isFinite(min)) {
            min = 0;
            max = 0;
        }
        final StringBuilder sb = new StringBuilder();
        sb.append(metric).append(" (").append(unit).append(") — ").append(v.length).append(" samples @ ").append(g)
                .append("s = ").append(v.length * g).append("s window");
        if (gaps > 0) {
            sb.append(" (").append(gaps).append(" gaps)");
        }
        sb.append("\n  min=").append(format(min)).append(" max=").append(format(max)).append(" last=")
                .append(Double.isNaN(last) ? "-" : format(last));
        sb.append("\n  ").append(sparkline(v, min, max));
        return sb.toString();
    }

    /** Eight levels; a gap is a blank; a flat series is drawn at the fourth level. */
    static String sparkline(final double[] v, final double min, final double max) {
        final double range = max - min;
        final StringBuilder sb = new StringBuilder(v.length);
        for (final double x : v) {
            if (Double.isNaN(x)) {
                sb.append(' ');
            } else if (!Double.isFinite(range) || range <= 0) {
                sb.append(BLOCKS[3]);
            } else {
                final double norm = Math.clamp((x - min) / range, 0.0, 1.0);
                sb.append(BLOCKS[(int) Math.min(BLOCKS.length - 1, Math.round(norm * (BLOCKS.length - 1)))]);
            }
        }
        return sb.toString();
    }

    private static double[] values(final JsonNode d) {
        final JsonNode arr = d.path("values");
        final double[] v = new double[arr.size()];
        for (int i = 0; i < v.length; i++) {
            final JsonNode x = arr.get(i);
            v[i] = x.isNumber() ? x.asDouble() : Double.NaN;
        }
        return v;
    }

    private static String format(final double x) {
        return String.format(Locale.ROOT, "%.3f", x);
    }
}
