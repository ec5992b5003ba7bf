package net.fips.cli;

import java.util.List;
import java.util.ArrayList;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * What the user has chosen in {@code fipsctl top}: the view, the selected peer row, the scroll offset, the Graphs
 * mode, window and selectors. Immutable, so the poller thread can read it while the key loop replaces it;
 * {@link #onKey} is the whole key map, pure and tested without a terminal.
 *
 * @param tab        the view shown
 * @param peerRow    the selected row of the Peers view, or -1 for none
 * @param scroll     first body line shown on views that scroll
 * @param collapsed  whether the Transports view hides the links under each transport
 * @param graphsMode the Graphs view's mode
 * @param window     index into {@link #WINDOWS}
 * @param metric     index into {@link #PEER_METRICS} (the metric of the metric-by-peer mode)
 * @param graphPeer  the selected peer of the Graphs view (a row of the by-peer list, or of {@code show_stats_peers})
 * @param help       whether the key help replaces the view
 * @param confirm    the npub that Del asked to disconnect, waiting for y, or null
 * @param notice     a one-line result to show until the next key (a disconnect's outcome), or null
 * @param perfPane   the Performance view's focused table: 0 links, 1 sessions
 * @param perfSort   the Performance view's sort per table: column index times two, plus one when descending
 * @param graphSort  the by-peer list's sort ({@link TopGraphs#SORT_COLUMNS}), coded as {@code perfSort}
 */
record TopState(TopView.Tab tab, int peerRow, int scroll, boolean collapsed, GraphsMode graphsMode, int window,
                int metric, int graphPeer, boolean help, String confirm, String notice, int perfPane,
                List<Integer> perfSort, int graphSort) {

    /** Key codes for the keys that are not characters (characters are their own code). */
    static final int UP = -1;
    static final int DOWN = -2;
    static final int LEFT = -3;
    static final int RIGHT = -4;
    static final int PAGE_UP = -5;
    static final int PAGE_DOWN = -6;
    static final int HOME = -7;
    static final int END = -8;
    static final int BACK_TAB = -9;
    static final int DELETE = -10;
    static final int ESCAPE = 27;

    /** Rows PageUp / PageDown move. */
    private static final int PAGE = 10;

    /** The Graphs view's (window, granularity) choices, as the reference's fipstop cycles them. */
    static final List<String[]> WINDOWS = List.of(new String[] {"1m", "1s"}, new String[] {"10m", "1s"},
            new String[] {"1h", "1s"}, new String[] {"24h", "1m"});

    /** The per-peer history metrics (operator.md §2.3, {@code show_stats_list} scope peer). */
    static final List<String> PEER_METRICS = List.of("srtt_ms", "loss_rate", "bytes_in", "bytes_out", "packets_in",
            "packets_out", "ecn_ce");

    /** The Graphs view's three modes. */
    enum GraphsMode {
        /** Every node-level metric, stacked. */
        NODE("node"),
        /** One per-peer metric across every tracked peer. */
        METRIC_BY_PEER("metric-by-peer"),
        /** Every per-peer metric of one peer, stacked. */
        PEER_BY_METRIC("peer-by-metric");

        final String label;

        GraphsMode(final String label) {
            this.label = label;
        }
    }

    /** The start: the Node view, nothing selected, Graphs on node metrics over 10 minutes. */
    static TopState initial() {
        return new TopState(TopView.Tab.NODE, -1, 0, false, GraphsMode.NODE, 1, 0, 0, false, null, null, 0,
                List.of(0, 0), 0);
    }

    TopState withTab(final TopView.Tab t) {
        return new TopState(t, peerRow, t == tab ? scroll : 0, collapsed, graphsMode, window, metric, graphPeer,
                false, null, null, perfPane, perfSort, graphSort);
    }

    private TopState withScroll(final int s) {
        return new TopState(tab, peerRow, Math.max(0, s), collapsed, graphsMode, window, metric, graphPeer, help,
                null, null, perfPane, perfSort, graphSort);
    }

    private TopState withPeerRow(final int r) {
        return new TopState(tab, r, scroll, collapsed, graphsMode, window, metric, graphPeer, help, null, null,
                perfPane, perfSort, graphSort);
    }

    private TopState withGraphs(final GraphsMode m, final int w, final int met, final int peer) {
        return new TopState(tab, peerRow, m == graphsMode ? scroll : 0, collapsed, m, w, met, Math.max(0, peer),
                help, null, null, perfPane, perfSort, graphSort);
    }

    private TopState withCollapsed(final boolean c) {
        return new TopState(tab, peerRow, scroll, c, graphsMode, window, metric, graphPeer, help, null, null,
                perfPane, perfSort, graphSort);
    }

    private TopState withHelp(final boolean h) {
        return new TopState(tab, peerRow, scroll, collapsed, graphsMode, window, metric, graphPeer, h, null, null,
                perfPane, perfSort, graphSort);
    }

    private TopState withConfirm(final String npub) {
        return new TopState(tab, peerRow, scroll, collapsed, graphsMode, window, metric, graphPeer, help, npub,
                null, perfPane, perfSort, graphSort);
    }

    private TopState withPerf(final int pane, final List<Integer> sort) {
        return new TopState(tab, peerRow, scroll, collapsed, graphsMode, window, metric, graphPeer, help, null, null,
                pane, List.copyOf(sort), graphSort);
    }

    /** @return the sort column of the Performance view's table {@code pane} */
    int perfColumn(final int pane) {
        return perfSort.get(pane) / 2;
    }

    /** @return whether the Performance view's table {@code pane} sorts descending */
    boolean perfDescending(final int pane) {
        return perfSort.get(pane) % 2 == 1;
    }

    private TopState withGraphSort(final int sort) {
        return new TopState(tab, peerRow, scroll, collapsed, graphsMode, window, metric, 0, help, null, null,
                perfPane, perfSort, sort);
    }

    /** @return this state showing {@code text} until the next key */
    TopState withNotice(final String text) {
        return new TopState(tab, peerRow, scroll, collapsed, graphsMode, window, metric, graphPeer, help, confirm,
                text, perfPane, perfSort, graphSort);
    }

    /**
     * @param key the key pressed in this state
     * @return the npub to disconnect when the key answers Del's question with y, else null
     */
    String disconnectTarget(final int key) {
        return confirm != null && (key == 'y' || key == 'Y') ? confirm : null;
    }

    /** @return the window, e.g. {@code 10m} */
    String windowName() {
        return WINDOWS.get(window)[0];
    }

    /** @return the granularity, e.g. {@code 1s} */
    String granularity() {
        return WINDOWS.get(window)[1];
    }

    /** @return the metric of the metric-by-peer mode */
    String peerMetric() {
        return PEER_METRICS.get(metric);
    }

    /**
     * The state after one key. Keys the view does not use leave it as it is; {@code q} and Ctrl-C are the
     * caller's (they quit).
     *
     * @param key       a character, or one of the negative codes above
     * @param poll      the latest answers (to bound the selections), or null
     * @param maxScroll the largest useful scroll offset of the view as last drawn
     * @return the new state
     */
    TopState onKey(final int key, final TopView.Poll poll, final int maxScroll) {
        if (confirm != null) {
            // y is the caller's (disconnectTarget); any key closes the question.
            return withConfirm(null);
        }
        if (notice != null) {
            return withNotice(null).onKey(key, poll, maxScroll);
        }
        if (help) {
            return key == '?' || key == ESCAPE ? withHelp(false) : this;
        }
        if (key >= '1' && key <= '9' && key - '1' < TopView.Tab.values().length) {
            return withTab(TopView.Tab.values()[key - '1']);
        }
        if (key == '0' && TopView.Tab.values().length >= 10) {
            return withTab(TopView.Tab.values()[9]);
        }
        switch (key) {
            case '\t' -> {
                return withTab(tab.next());
            }
            case BACK_TAB -> {
                return withTab(tab.previous());
            }
            case 'g' -> {
                return withTab(TopView.Tab.GRAPHS);
            }
            case '?' -> {
                return withHelp(true);
            }
            default -> {
                // per view below
            }
        }
        return switch (tab) {
            case PEERS -> key == DELETE ? deleteKey(poll)
                    : peersKey(key, rows(poll == null ? null : poll.peers(), "peers"));
            case TRANSPORTS -> switch (key) {
                case LEFT, 'c' -> withCollapsed(true);
                case RIGHT, ' ', 'e' -> withCollapsed(false);
                default -> scrollKey(key, maxScroll);
            };
            case GRAPHS -> graphsKey(key, poll, maxScroll);
            case PERFORMANCE -> perfKey(key, maxScroll);
            default -> scrollKey(key, maxScroll);
        };
    }

    private TopState peersKey(final int key, final int count) {
        final int last = count - 1;
        return switch (key) {
            case DOWN -> withPeerRow(count == 0 ? -1 : Math.min(last, peerRow + 1));
            case UP -> withPeerRow(count == 0 ? -1 : Math.max(0, Math.min(last, peerRow - 1)));
            case HOME -> withPeerRow(count == 0 ? -1 : 0);
            case END -> withPeerRow(last);
            case PAGE_DOWN -> withPeerRow(count == 0 ? -1 : Math.min(last, Math.max(0, peerRow) + PAGE));
            case PAGE_UP -> withPeerRow(count == 0 ? -1 : Math.max(0, Math.min(last, peerRow) - PAGE));
            case ESCAPE -> withPeerRow(-1);
            default -> this;
        };
    }

    /** Del on a selected peer asks whether to disconnect it (the reference fipstop's one mutating key). */
    private TopState deleteKey(final TopView.Poll poll) {
        final JsonNode peers = poll == null || poll.peers() == null ? null : poll.peers().path("peers");
        if (peers == null || peerRow < 0 || peerRow >= peers.size()) {
            return this;
        }
        final String npub = peers.get(peerRow).path("npub").asText("");
        return npub.isEmpty() ? this : withConfirm(npub);
    }

    /** {@code f} moves between the link and session tables, {@code s} cycles the sort column, {@code S} flips it. */
    private TopState perfKey(final int key, final int maxScroll) {
        final List<Integer> sort = new ArrayList<>(perfSort);
        final int cols = TopPeerViews.PERF_COLUMNS.get(perfPane).size();
        switch (key) {
            case 'f' -> {
                return withPerf(1 - perfPane, sort);
            }
            case 's' -> sort.set(perfPane, (perfColumn(perfPane) + 1) % cols * 2
                    + (perfDescending(perfPane) ? 1 : 0));
            case 'S' -> sort.set(perfPane, perfColumn(perfPane) * 2 + (perfDescending(perfPane) ? 0 : 1));
            default -> {
                return scrollKey(key, maxScroll);
            }
        }
        return withPerf(perfPane, sort);
    }

    private TopState scrollKey(final int key, final int maxScroll) {
        final int max = Math.max(0, maxScroll);
        final int now = Math.min(scroll, max);
        return switch (key) {
            case DOWN -> withScroll(Math.min(max, now + 1));
            case UP -> withScroll(now - 1);
            case PAGE_DOWN -> withScroll(Math.min(max, now + PAGE));
            case PAGE_UP -> withScroll(now - PAGE);
            case HOME -> withScroll(0);
            case END -> withScroll(max);
            default -> this;
        };
    }

    private TopState graphsKey(final int key, final TopView.Poll poll, final int maxScroll) {
        final int n = WINDOWS.size();
        final int m = PEER_METRICS.size();
        final GraphsMode[] modes = GraphsMode.values();
        switch (key) {
            case RIGHT, ' ' -> {
                return withGraphs(graphsMode, (window + 1) % n, metric, graphPeer);
            }
            case LEFT -> {
                return withGraphs(graphsMode, (window + n - 1) % n, metric, graphPeer);
            }
            case 'm' -> {
                return withGraphs(modes[(graphsMode.ordinal() + 1) % modes.length], window, metric, graphPeer);
            }
            default -> {
                // below
            }
        }
        if (graphsMode == GraphsMode.METRIC_BY_PEER) {
            final int peers = rows(poll == null ? null : poll.get(TopView.Source.GRAPHS), "peers");
            return switch (key) {
                case 's' -> withGraphSort((graphSort / 2 + 1) % TopGraphs.SORT_COLUMNS.size() * 2 + graphSort % 2);
                case 'S' -> withGraphSort(graphSort / 2 * 2 + 1 - graphSort % 2);
                case 'n' -> withGraphs(graphsMode, window, (metric + 1) % m, graphPeer);
                case 'N' -> withGraphs(graphsMode, window, (metric + m - 1) % m, graphPeer);
                case DOWN -> withGraphs(graphsMode, window, metric, Math.min(Math.max(0, peers - 1), graphPeer + 1));
                case UP -> withGraphs(graphsMode, window, metric, Math.min(Math.max(0, peers - 1), graphPeer) - 1);
                default -> this;
            };
        }
        if (graphsMode == GraphsMode.PEER_BY_METRIC) {
            final int peers = rows(poll == null ? null : poll.get(TopView.Source.STATS_PEERS), "peers");
            if (key == 'n' || key == 'N') {
                final int p = peers == 0 ? 0 : (Math.min(graphPeer, peers - 1) + (key == 'n' ? 1 : peers - 1)) % peers;
                return withGraphs(graphsMode, window, metric, p);
            }
        }
        return scrollKey(key, maxScroll);
    }

    private static int rows(final JsonNode answer, final String key) {
        return answer == null ? 0 : answer.path(key).size();
    }
}
