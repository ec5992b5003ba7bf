package net.fips.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.jline.utils.WCWidth;
import com.fasterxml.jackson.databind.JsonNode;

/** Cell and line formatting shared by the views of {@code fipsctl top}: figures, units, grids, widths. */
final class TopFormat {

    private TopFormat() {
    }

    static List<String[]> indent(final List<String[]> rows) {
        for (final String[] r : rows) {
            r[0] = "  " + r[0];
        }
        return rows;
    }

    /** A counter object as (name, value) pairs; an absent object is one pair of dashes. */
    static List<String[]> counters(final JsonNode obj) {
        final List<String[]> out = new ArrayList<>();
        if (obj == null || !obj.isObject() || obj.isEmpty()) {
            out.add(new String[] {"-", "-"});
            return out;
        }
        for (final Map.Entry<String, JsonNode> e : obj.properties()) {
            out.add(new String[] {e.getKey(), text(e.getValue())});
        }
        return out;
    }

    /** (label, value) pairs in as many aligned columns as {@code width} holds, indented by two. */
    static List<String> grid(final List<String[]> pairs, final int width) {
        int label = 0;
        int value = 0;
        for (final String[] p : pairs) {
            label = Math.max(label, p[0].length());
            value = Math.max(value, p[1].length());
        }
        final int cell = label + 1 + value + 4;
        final int cols = Math.max(1, (width - 2) / cell);
        final int rows = (pairs.size() + cols - 1) / cols;
        final List<String> out = new ArrayList<>(rows);
        for (int r = 0; r < rows; r++) {
            final StringBuilder sb = new StringBuilder("  ");
            for (int c = 0; c < cols; c++) {
                final int i = c * rows + r;
                if (i < pairs.size()) {
                    sb.append(String.format(Locale.ROOT, "%-" + label + "s %" + value + "s    ", pairs.get(i)[0],
                            pairs.get(i)[1]));
                }
            }
            out.add(sb.toString().stripTrailing());
        }
        return out;
    }

    static String sum(final JsonNode obj, final String a, final String b) {
        final JsonNode x = obj.get(a);
        final JsonNode y = obj.get(b);
        return x == null || y == null || !x.isNumber() || !y.isNumber() ? "-" : Long.toString(x.asLong() + y.asLong());
    }

    static String share(final JsonNode n, final JsonNode total) {
        if (n == null || total == null || !n.isNumber() || !total.isNumber()) {
            return "-";
        }
        return total.asLong() == 0 ? "-" : String.format(Locale.ROOT, "%.1f%%", 100.0 * n.asLong() / total.asLong());
    }

    static String bytes(final JsonNode v) {
        return v == null || !v.isNumber() ? "-" : Long.toString(v.asLong());
    }

    static String millis(final JsonNode v) {
        if (v == null || !v.isNumber()) {
            return "-";
        }
        final long ms = v.asLong();
        if (ms < 1000) {
            return ms + "ms";
        }
        if (ms < 60_000) {
            return String.format(Locale.ROOT, "%.1fs", ms / 1000.0);
        }
        return ms < 3_600_000 ? String.format(Locale.ROOT, "%dm%02ds", ms / 60_000, ms / 1000 % 60)
                : String.format(Locale.ROOT, "%dh%02dm", ms / 3_600_000, ms / 60_000 % 60);
    }

    static String text(final JsonNode v) {
        return TableView.text(v);
    }

    static String number(final double x) {
        return x == Math.rint(x) && Math.abs(x) < 1e15 ? Long.toString((long) x)
                : String.format(Locale.ROOT, "%.3f", x);
    }

    static String uptime(final JsonNode secs) {
        if (secs == null || !secs.isNumber()) {
            return "-";
        }
        final long s = secs.asLong();
        return s >= 86_400 ? String.format(Locale.ROOT, "%dd%02dh%02dm", s / 86_400, s / 3600 % 24, s / 60 % 60)
                : String.format(Locale.ROOT, "%02d:%02d:%02d", s / 3600, s / 60 % 60, s % 60);
    }

    static String bytesPerSecond(final double b) {
        if (b >= 1e6) {
            return String.format(Locale.ROOT, "%.1fM", b / 1e6);
        }
        if (b >= 1e3) {
            return String.format(Locale.ROOT, "%.1fk", b / 1e3);
        }
        return String.format(Locale.ROOT, "%.0f", b);
    }

    /**
     * {@code line} cut to {@code width} terminal columns: wide characters count two, combining ones none, and a
     * control character (an escape in a peer's name, say) is drawn as {@code ?} so it cannot move the cursor.
     */
    static String fit(final String line, final int width) {
        final StringBuilder sb = new StringBuilder(Math.min(line.length(), Math.max(0, width)));
        int cols = 0;
        for (int i = 0; i < line.length(); ) {
            int cp = line.codePointAt(i);
            i += Character.charCount(cp);
            if (cp < 0x20 || cp >= 0x7f && cp < 0xa0) {
                cp = '?';
            }
            final int w = Math.max(0, WCWidth.wcwidth(cp));
            if (cols + w > width) {
                break;
            }
            sb.appendCodePoint(cp);
            cols += w;
        }
        return sb.toString();
    }
}
