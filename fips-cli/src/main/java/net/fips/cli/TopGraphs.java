package net.fips.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import net.fips.control.ctl.ControlJson;

/**
 * The Graphs view of {@code fipsctl top}: the stats history as small plots, in the three modes of the reference's
 * fipstop (every node metric; one per-peer metric across peers; every per-peer metric of one peer) over one of
 * four windows. Each plot is a few rows of eighth blocks, autoscaled to its own min..max; every measured sample
 * draws at least the lowest block, so a gap ({@code null} in the history) is the only blank.
 */
final class TopGraphs {
    private static final char[] EIGHTHS = {'▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'};
    /** Plot rows per metric in the stacked modes. */
    static final int PLOT_ROWS = 3;
    private static final String GUTTER = "  ";
    /** The by-peer list's sort columns, as the reference's fipstop offers them. */
    static final List<String> SORT_COLUMNS = List.of("name", "min", "max", "last", "n");

    private TopGraphs() {
    }

    /**
     * The query the Graphs view needs for a state.
     *
     * @param command    the control command
     * @param params     its params
     * @param key        what it answers (compared with {@link TopView.Poll#graphsFor()} before drawing)
     */
    record Request(String command, ObjectNode params, String key) {
    }

    /**
     * @param s          the state
     * @param statsPeers the latest {@code show_stats_peers} answer, or null
     * @return the query for the state, or null when none can be made yet (peer-by-metric without a tracked peer)
     */
    static Request request(final TopState s, final JsonNode statsPeers) {
        final ObjectNode params = ControlJson.MAPPER.createObjectNode().put("window", s.windowName())
                .put("granularity", s.granularity());
        return switch (s.graphsMode()) {
            case NODE -> new Request("show_stats_all_history", params, key(s, ""));
            case METRIC_BY_PEER -> new Request("show_stats_history_all_peers", params.put("metric", s.peerMetric()),
                    key(s, s.peerMetric()));
            case PEER_BY_METRIC -> {
                final JsonNode peer = selectedStatsPeer(s, statsPeers);
                yield peer == null ? null : new Request("show_stats_all_history",
                        params.put("peer", peer.path("npub").asText()), key(s, peer.path("npub").asText()));
            }
        };
    }

    private static String key(final TopState s, final String what) {
        return s.graphsMode() + "|" + s.windowName() + "|" + s.granularity() + "|" + what;
    }

    private static JsonNode selectedStatsPeer(final TopState s, final JsonNode statsPeers) {
        final JsonNode peers = statsPeers == null ? null : statsPeers.path("peers");
        if (peers == null || peers.isEmpty()) {
            return null;
        }
        return peers.get(Math.min(s.graphPeer(), peers.size() - 1));
    }

    /**
     * The body of the Graphs view.
     *
     * @param p     the latest answers
     * @param s     the state
     * @param width terminal columns
     * @param rows  body rows available (the by-peer plot uses what the list leaves)
     * @return the lines and the line to keep visible (-1 for none)
     */
    static TopView.Body body(final TopView.Poll p, final TopState s, final int width, final int rows) {
        final List<String> lines = new ArrayList<>();
        final Request r = request(s, p.get(TopView.Source.STATS_PEERS));
        final String selector = switch (s.graphsMode()) {
            case NODE -> "";
            case METRIC_BY_PEER -> " [" + s.peerMetric() + "]";
            case PEER_BY_METRIC -> {
                final JsonNode peer = selectedStatsPeer(s, p.get(TopView.Source.STATS_PEERS));
                yield " [" + (peer == null ? "(no peers tracked)" : peer.path("display_name").asText("?")) + "]";
            }
        };
        lines.add("mode: " + s.graphsMode().label + selector + "   window: " + s.windowName() + " @ "
                + s.granularity());
        final JsonNode d = p.get(TopView.Source.GRAPHS);
        if (r == null) {
            lines.add("");
            lines.add("No peers tracked in the stats history yet.");
            return new TopView.Body(lines, -1);
        }
        if (d == null || !r.key().equals(p.graphsFor())) {
            lines.add("");
            lines.add("(waiting for data)");
            return new TopView.Body(lines, -1);
        }
        final int cols = Math.max(1, width - GUTTER.length());
        if (s.graphsMode() == TopState.GraphsMode.METRIC_BY_PEER) {
            return byPeer(d, s, lines, cols, rows);
        }
        lines.add("");
        for (final JsonNode series : d.path("series")) {
            final double[] v = values(series.path("values"));
            lines.add(title(series.path("metric").asText("?"), series.path("unit").asText(""), v));
            if (v.length == 0) {
                lines.add(GUTTER + "(no samples)");
            } else {
                for (final String row : plot(v, cols, PLOT_ROWS)) {
                    lines.add(GUTTER + row);
                }
            }
            lines.add("");
        }
        return new TopView.Body(lines, -1);
    }

    /** One line per peer (name, min, max, last, samples, a sparkline), then a taller plot of the selected one. */
    private static TopView.Body byPeer(final JsonNode d, final TopState s, final List<String> lines, final int cols,
                                       final int rows) {
        final JsonNode peers = d.path("peers");
        final String unit = d.path("unit").asText("");
        lines.add("");
        if (peers.isEmpty()) {
            lines.add("No peers tracked in the stats history yet.");
            return new TopView.Body(lines, -1);
        }
        final int sel = Math.min(s.graphPeer(), peers.size() - 1);
        int nameWidth = 4;
        for (final JsonNode peer : peers) {
            nameWidth = Math.max(nameWidth, Math.min(24, peer.path("display_name").asText("?").length()));
        }
        final int sortCol = s.graphSort() / 2;
        final boolean desc = s.graphSort() % 2 == 1;
        final List<JsonNode> order = new ArrayList<>();
        peers.forEach(order::add);
        order.sort((a, b) -> compare(a, b, sortCol, desc));
        final String[] heads = {"PEER", "MIN", "MAX", "LAST", "N"};
        heads[sortCol] += desc ? "▼" : "▲";
        lines.add(String.format(Locale.ROOT, "  %-" + (nameWidth + 1) + "s%9s %9s %9s %6s  %s", heads[0], heads[1],
                heads[2], heads[3], heads[4], "[" + unit + "]   sort: " + SORT_COLUMNS.get(sortCol)
                + (desc ? " descending" : " ascending")));
        int focus = -1;
        for (int i = 0; i < order.size(); i++) {
            final JsonNode peer = order.get(i);
            final double[] v = values(peer.path("values"));
            final double[] st = summary(v);
            String name = peer.path("display_name").asText("?");
            name = name.length() > nameWidth ? name.substring(0, nameWidth) : name;
            final String head = String.format(Locale.ROOT, "%s %-" + nameWidth + "s %9s %9s %9s %6d  ",
                    i == sel ? ">" : " ", name, compact(st[0]), compact(st[1]), compact(st[2]), v.length);
            final int left = Math.max(0, cols + GUTTER.length() - head.length());
            if (i == sel) {
                focus = lines.size();
            }
            lines.add(head + (left > 0 && v.length > 0 ? plot(v, left, 1).getFirst() : ""));
        }
        final JsonNode peer = order.get(sel);
        final double[] v = values(peer.path("values"));
        lines.add("");
        lines.add(title(peer.path("display_name").asText("?") + " " + d.path("metric").asText(""), unit, v));
        final int plotRows = Math.max(2, Math.min(12, rows - lines.size() - 1));
        if (v.length == 0) {
            lines.add(GUTTER + "(no samples)");
        } else {
            for (final String row : plot(v, cols, plotRows)) {
                lines.add(GUTTER + row);
            }
        }
        return new TopView.Body(lines, focus);
    }

    /** By name (case-insensitive), or by min / max / last / sample count; a peer without a value sorts last. */
    private static int compare(final JsonNode a, final JsonNode b, final int col, final boolean desc) {
        if (col == 0) {
            final int c = String.CASE_INSENSITIVE_ORDER.compare(a.path("display_name").asText(""),
                    b.path("display_name").asText(""));
            return desc ? -c : c;
        }
        final double[] va = values(a.path("values"));
        final double[] vb = values(b.path("values"));
        final double ka = col == 4 ? va.length : summary(va)[col - 1];
        final double kb = col == 4 ? vb.length : summary(vb)[col - 1];
        if (Double.isNaN(ka) || Double.isNaN(kb)) {
            return Boolean.compare(Double.isNaN(ka), Double.isNaN(kb));
        }
        return desc ? Double.compare(kb, ka) : Double.compare(ka, kb);
    }

    private static String title(final String metric, final String unit, final double[] v) {
        final double[] st = summary(v);
        int gaps = 0;
        for (final double x : v) {
            gaps += Double.isNaN(x) ? 1 : 0;
        }
        return "  " + metric + " [" + unit + "]   min " + compact(st[0]) + "   max " + compact(st[1]) + "   last "
                + compact(st[2]) + "   samples " + v.length + (gaps > 0 ? " (" + gaps + " gaps)" : "");
    }

    /** @return min, max and last of the measured samples; NaN for each when there is none */
    static double[] summary(final double[] v) {
        double min = Double.NaN;
        double max = Double.NaN;
        double last = Double.NaN;
        for (final double x : v) {
            if (!Double.isNaN(x)) {
                min = Double.isNaN(min) ? x : Math.min(min, x);
                max = Double.isNaN(max) ? x : Math.max(max, x);
                last = x;
            }
        }
        return new double[] {min, max, last};
    }

    /**
     * A filled plot of {@code v} across {@code cols} columns, oldest at the left, newest at the right edge (see
     * {@link #buckets}).
     *
     * @param v    samples, oldest first; NaN is a gap
     * @param cols columns available (at least 1)
     * @param rows plot rows (at least 1)
     * @return {@code rows} strings of {@code cols} characters (empty ones when there is no sample)
     */
    static List<String> plot(final double[] v, final int cols, final int rows) {
        final double[] b = buckets(v, Math.max(1, cols));
        final double[] st = summary(b);
        final double range = st[1] - st[0];
        final int eighths = rows * EIGHTHS.length;
        final int[] level = new int[b.length];
        for (int i = 0; i < b.length; i++) {
            if (Double.isNaN(b[i])) {
                level[i] = 0;
            } else if (!(range > 0)) {
                level[i] = 1;
            } else {
                level[i] = 1 + (int) Math.round((b[i] - st[0]) / range * (eighths - 1));
            }
        }
        final List<String> out = new ArrayList<>(rows);
        for (int r = 0; r < rows; r++) {
            final int base = (rows - 1 - r) * EIGHTHS.length;
            final StringBuilder sb = new StringBuilder(b.length);
            for (final int l : level) {
                final int cell = l - base;
                sb.append(cell <= 0 ? ' ' : EIGHTHS[Math.min(EIGHTHS.length, cell) - 1]);
            }
            out.add(sb.toString());
        }
        return out;
    }

    /**
     * {@code v} fitted to {@code cols} columns: with more samples, each column is the mean of its share (NaN for a
     * column with no measured sample); with fewer, each sample spans one or more whole columns.
     */
    static double[] buckets(final double[] v, final int cols) {
        if (v.length == 0) {
            return new double[0];
        }
        final double[] out = new double[cols];
        if (v.length <= cols) {
            for (int c = 0; c < cols; c++) {
                out[c] = v[(int) ((long) c * v.length / cols)];
            }
            return out;
        }
        for (int c = 0; c < cols; c++) {
            final int from = (int) ((long) c * v.length / cols);
            final int to = (int) ((long) (c + 1) * v.length / cols);
            double sum = 0;
            int n = 0;
            for (int i = from; i < to; i++) {
                if (!Double.isNaN(v[i])) {
                    sum += v[i];
                    n++;
                }
            }
            out[c] = n == 0 ? Double.NaN : sum / n;
        }
        return out;
    }

    /** A value in at most about six characters: {@code -} for none, then 2 decimals, 1 decimal, k, M, G. */
    static String compact(final double v) {
        if (Double.isNaN(v)) {
            return "-";
        }
        final double a = Math.abs(v);
        if (a < 10) {
            return String.format(Locale.ROOT, "%.2f", v);
        }
        if (a < 1000) {
            return String.format(Locale.ROOT, "%.1f", v);
        }
        if (a < 1e6) {
            return String.format(Locale.ROOT, "%.1fk", v / 1e3);
        }
        if (a < 1e9) {
            return String.format(Locale.ROOT, "%.1fM", v / 1e6);
        }
        return String.format(Locale.ROOT, "%.1fG", v / 1e9);
    }

    static double[] values(final JsonNode arr) {
        final double[] v = new double[arr.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = arr.get(i).isNumber() ? arr.get(i).asDouble() : Double.NaN;
        }
        return v;
    }
}
