package net.fips.cli;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

import com.fasterxml.jackson.databind.JsonNode;

/** Text renderings of the {@code stats} responses: tables on a terminal, and the reference's {@code --plot}. */
final class StatsTables {
    private static final char[] BLOCKS = {'▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'};
    /** Newest samples listed under the sparkline in the terminal view. */
    private static final int TAIL_ROWS = 10;
    /** Width assumed when neither {@code COLUMNS} nor the terminal says. */
    static final int DEFAULT_COLUMNS = 80;
    /** Indent of the sparkline line. */
    private static final String INDENT = "  ";

    /** The width the plot must fit, asked when a plot is drawn; replaceable by tests. */
    static IntSupplier plotColumns = () -> columns(System.getenv("COLUMNS"),
            FipsCtl.stdoutIsTerminal.getAsBoolean(), StatsTables::askTerminalColumns);

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

    /**
     * @param columnsEnv the {@code COLUMNS} variable, or null
     * @param terminal   whether standard output is a terminal
     * @param ask        the terminal's width, or 0 when it cannot tell
     * @return {@code COLUMNS} when it is a positive number, else the terminal's width, else {@link #DEFAULT_COLUMNS}
     */
    static int columns(final String columnsEnv, final boolean terminal, final IntSupplier ask) {
        if (columnsEnv != null) {
            try {
                final int c = Integer.parseInt(columnsEnv.strip());
                if (c > 0) {
                    return c;
                }
            } catch (final NumberFormatException e) {
                // Not a width: fall through to the terminal.
            }
        }
        if (terminal) {
            final int c = ask.getAsInt();
            if (c > 0) {
                return c;
            }
        }
        return DEFAULT_COLUMNS;
    }

    /** The controlling terminal's width from {@code stty size} (as JLine's exec provider asks), or 0. */
    private static int askTerminalColumns() {
        try {
            final Process p = new ProcessBuilder("stty", "size").redirectInput(new File("/dev/tty"))
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            if (!p.waitFor(2, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return 0;
            }
            final String[] rowsCols = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII)
                    .strip().split("\\s+");
            return p.exitValue() == 0 && rowsCols.length == 2 ? Integer.parseInt(rowsCols[1]) : 0;
        } catch (final IOException | NumberFormatException e) {
            return 0;
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        }
    }

    /** The terminal view: the plot's three lines, then the newest samples with their age. */
    static String history(final String metric, final JsonNode d) {
        return history(metric, d, plotColumns.getAsInt());
    }

    /** {@link #history(String, JsonNode)} for a given width. */
    static String history(final String metric, final JsonNode d, final int columns) {
        final double[] v = values(d);
        if (v.length == 0) {
            return plot(metric, d, columns);
        }
        final long g = d.path("granularity_seconds").asLong(1);
        final List<String[]> rows = new ArrayList<>();
        for (int i = Math.max(0, v.length - TAIL_ROWS); i < v.length; i++) {
            rows.add(new String[] {"-" + (v.length - 1 - i) * g + "s", Double.isNaN(v[i]) ? "-" : format(v[i])});
        }
        return plot(metric, d, columns) + "\n\n" + TableView.table(new String[] {"AGE", "VALUE"}, rows).stripTrailing()
                + "\n(all samples: --json)";
    }

    /**
     * The reference's {@code --plot}: {@code metric (unit) — N samples @ Gs = Ws window (k gaps)}, then
     * {@code min=… max=… last=…}, then the sparkline with blanks for gaps. Unlike the reference, which draws one
     * column per sample whatever the width, a series wider than the terminal is drawn in as many columns as fit,
     * each the mean of its samples, and the first line says how many columns.
     */
    static String plot(final String metric, final JsonNode d) {
        return plot(metric, d, plotColumns.getAsInt());
    }

    /** {@link #plot(String, JsonNode)} for a given width. */
    static String plot(final String metric, final JsonNode d, final int columns) {
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
        final double[] shown = fit(v, Math.max(1, columns - INDENT.length()));
        if (shown.length < v.length) {
            sb.append(", ").append(shown.length).append(" columns");
        }
        sb.append("\n  min=").append(format(min)).append(" max=").append(format(max)).append(" last=")
                .append(Double.isNaN(last) ? "-" : format(last));
        sb.append('\n').append(INDENT).append(sparkline(shown, min, max));
        return sb.toString();
    }

    /**
     * @param v       samples, NaN for a gap
     * @param columns the most columns to draw
     * @return {@code v} when it fits, else {@code columns} buckets of consecutive samples (sizes differ by at most
     *         one), each the mean of its non-gap samples, or a gap when it has none
     */
    static double[] fit(final double[] v, final int columns) {
        return v.length <= columns ? v : TopGraphs.buckets(v, columns);
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
