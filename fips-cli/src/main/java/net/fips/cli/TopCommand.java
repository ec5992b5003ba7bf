package net.fips.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.io.Console;

import org.jline.terminal.Attributes;
import org.jline.terminal.Size;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;
import org.jline.utils.InfoCmp.Capability;
import org.jline.utils.NonBlockingReader;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

import net.fips.control.config.ControlSocketPaths;
import net.fips.control.config.HostEnvironment;
import net.fips.control.ctl.ControlClient;
import net.fips.control.ctl.ControlClientException;
import net.fips.control.ctl.ControlJson;

/**
 * {@code fipsctl top}: a live full-screen view of the node in the spirit of the reference's {@code fipstop}. It
 * polls the control socket on a background thread (status and peers every round, and what the view shown needs:
 * {@link TopView#sourcesFor}) and redraws from the latest answers on the alternate screen; {@code q} (or Ctrl-C)
 * quits and restores the terminal, Tab / Shift-Tab / 1-9 switch views, the other keys are {@link TopState#onKey};
 * its one mutating key is Del on a selected peer, which asks y/N and then sends {@code disconnect}.
 * When the daemon cannot be reached the view says so and keeps retrying. Without a terminal it prints an error
 * and exits 64.
 *
 * <p>The terminal is driven through JLine's exec provider ({@code stty}), so no native access is needed.
 */
@Command(name = "top", mixinStandardHelpOptions = true,
        description = {"Live full-screen view of the node (q quits, Tab or 1-9 switch views, ? lists the keys).",
            "Needs a terminal; polls the control socket every --refresh seconds."})
final class TopCommand implements Callable<Integer> {
    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss");
    private static final Duration QUERY_TIMEOUT = Duration.ofSeconds(2);

    /** Whether stdin and stdout are a terminal; replaceable by tests. */
    static BooleanSupplier isTerminal = () -> {
        final Console c = System.console();
        return c != null && c.isTerminal();
    };

    @ParentCommand
    FipsCtl root;

    @Option(names = "--gateway-socket", paramLabel = "PATH",
            description = "fips-gateway's control socket for the Gateway view (default: gateway.sock beside the"
                    + " daemon's default socket, e.g. /run/fips/gateway.sock).")
    Path gatewaySocket;

    @Option(names = {"-r", "--refresh"}, paramLabel = "SECONDS", defaultValue = "1",
            description = "Seconds between polls (default: ${DEFAULT-VALUE}).")
    double refreshSeconds;

    @Override
    public Integer call() throws IOException {
        if (!isTerminal.getAsBoolean()) {
            root.err().println("error: fipsctl top needs a terminal (stdin and stdout); use fipsctl show ... in"
                    + " scripts");
            root.err().flush();
            return FipsCtl.EXIT_USAGE;
        }
        if (!(refreshSeconds >= 0.1 && refreshSeconds <= 3600)) {
            root.err().println("error: --refresh must be between 0.1 and 3600 seconds");
            root.err().flush();
            return FipsCtl.EXIT_USAGE;
        }
        final Path socket = root.socket != null ? root.socket : ControlSocketPaths.defaultControlSocket();
        final ControlClient client = new ControlClient(socket, QUERY_TIMEOUT);
        final ControlClient gateway = new ControlClient(gatewaySocket != null ? gatewaySocket
                : ControlSocketPaths.resolveDefault(HostEnvironment.system(), ControlSocketPaths.GATEWAY_SOCKET),
                QUERY_TIMEOUT);
        final long periodNanos = (long) (refreshSeconds * 1e9);

        final Terminal terminal;
        try {
            terminal = TerminalBuilder.builder().system(true).exec(true).ffm(false).jna(false).jansi(false)
                    .jni(false).dumb(false).build();
        } catch (final IOException | IllegalStateException e) {
            root.err().println("error: cannot drive this terminal (" + e.getMessage() + ")");
            root.err().flush();
            return FipsCtl.EXIT_USAGE;
        }
        try (terminal) {
            return run(terminal, client, gateway, periodNanos);
        }
    }

    private int run(final Terminal terminal, final ControlClient client, final ControlClient gateway,
            final long periodNanos)
            throws IOException {
        final AtomicBoolean quit = new AtomicBoolean();
        final AtomicBoolean dirty = new AtomicBoolean(true);
        final AtomicReference<TopView.Poll> latest = new AtomicReference<>();
        final AtomicReference<Map<String, double[]>> rates = new AtomicReference<>(Map.of());
        final Thread mainThread = Thread.currentThread();
        final AtomicReference<TopState> state = new AtomicReference<>(TopState.initial());

        final Thread poller = Thread.ofPlatform().daemon().name("fipsctl-top-poll").start(() -> {
            TopView.Poll rateBase = null;
            while (!quit.get()) {
                final long start = System.nanoTime();
                final TopView.Poll now = poll(client, gateway, latest.get(), state.get());
                // A view change polls at once; byte rates stay over at least half a period.
                if (rateBase == null || now.atNanos() - rateBase.atNanos() >= periodNanos / 2) {
                    rates.set(TopView.rates(rateBase, now));
                    rateBase = now;
                }
                latest.set(now);
                dirty.set(true);
                LockSupport.unpark(mainThread);
                final long wait = periodNanos - (System.nanoTime() - start);
                if (wait > 0 && !quit.get()) {
                    LockSupport.parkNanos(wait);
                }
            }
        });

        final Attributes saved = terminal.enterRawMode();
        terminal.handle(Terminal.Signal.WINCH, s -> dirty.set(true));
        terminal.handle(Terminal.Signal.INT, s -> quit.set(true));
        terminal.puts(Capability.enter_ca_mode);
        terminal.puts(Capability.cursor_invisible);
        terminal.flush();
        int maxScroll = 0;
        try {
            final NonBlockingReader reader = terminal.reader();
            while (!quit.get()) {
                if (dirty.getAndSet(false)) {
                    maxScroll = draw(terminal, latest.get(), rates.get(), state.get());
                }
                final int c = reader.read(100L);
                if (c == NonBlockingReader.EOF) {
                    break;
                }
                if (c == NonBlockingReader.READ_EXPIRED) {
                    continue;
                }
                if (c == 'q' || c == 'Q' || c == 3) {
                    quit.set(true);
                    continue;
                }
                final int key = c == 27 ? escape(reader) : c == '\r' || c == '\n' ? '\n' : c;
                // The disconnect thread may set a notice meanwhile: replace the state only if it is unchanged.
                TopState before;
                TopState after;
                do {
                    before = state.get();
                    after = before.onKey(key, latest.get(), maxScroll);
                } while (!state.compareAndSet(before, after));
                final String target = before.disconnectTarget(key);
                if (target != null) {
                    disconnect(client, target, latest.get(), state, () -> {
                        dirty.set(true);
                        LockSupport.unpark(poller);
                        LockSupport.unpark(mainThread);
                    });
                }
                if (!after.equals(before)) {
                    dirty.set(true);
                    if (after.tab() != before.tab() || after.graphsMode() != before.graphsMode()
                            || after.window() != before.window() || after.metric() != before.metric()
                            || after.graphPeer() != before.graphPeer()) {
                        LockSupport.unpark(poller);
                    }
                }
            }
        } finally {
            quit.set(true);
            LockSupport.unpark(poller);
            terminal.puts(Capability.cursor_visible);
            terminal.puts(Capability.exit_ca_mode);
            terminal.setAttributes(saved);
            terminal.flush();
        }
        return FipsCtl.EXIT_OK;
    }

    /**
     * Sends {@code disconnect} for {@code npub} off the key loop and leaves the outcome as the state's notice.
     */
    private static void disconnect(final ControlClient client, final String npub, final TopView.Poll poll,
                                   final AtomicReference<TopState> state, final Runnable redraw) {
        final String name = TopView.peerName(poll, npub);
        Thread.ofVirtual().name("fipsctl-top-disconnect").start(() -> {
            String notice;
            try {
                final ObjectNode r = client.send("disconnect",
                        ControlJson.MAPPER.createObjectNode().put("npub", npub));
                notice = "ok".equals(r.path("status").asText()) ? "disconnected " + name
                        : "disconnect " + name + " failed: " + r.path("message").asText("?");
            } catch (final ControlClientException e) {
                notice = "disconnect " + name + " failed: " + e.getMessage();
            }
            final String n = notice;
            state.updateAndGet(s -> s.withNotice(n));
            redraw.run();
        });
    }

    /**
     * Decodes what follows an Escape: {@code CSI A..D} / {@code SS3 A..D} arrows, {@code CSI Z} Shift-Tab,
     * {@code CSI 5~ / 6~} page keys, {@code CSI H / F / 1~ / 4~ / 7~ / 8~} Home and End. A lone Escape (nothing
     * within 50 ms) is Escape; a sequence not listed is ignored (0).
     */
    static int escape(final NonBlockingReader reader) throws IOException {
        final int intro = reader.peek(50L);
        if (intro != '[' && intro != 'O') {
            return TopState.ESCAPE;
        }
        reader.read();
        final StringBuilder params = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            final int c = reader.read(50L);
            if (c < 0) {
                return 0;
            }
            if (c >= '0' && c <= '9' || c == ';') {
                params.append((char) c);
                continue;
            }
            return switch (c) {
                case 'A' -> TopState.UP;
                case 'B' -> TopState.DOWN;
                case 'C' -> TopState.RIGHT;
                case 'D' -> TopState.LEFT;
                case 'Z' -> TopState.BACK_TAB;
                case 'H' -> TopState.HOME;
                case 'F' -> TopState.END;
                case '~' -> switch (params.toString()) {
                    case "3" -> TopState.DELETE;
                    case "5" -> TopState.PAGE_UP;
                    case "6" -> TopState.PAGE_DOWN;
                    case "1", "7" -> TopState.HOME;
                    case "4", "8" -> TopState.END;
                    default -> 0;
                };
                default -> 0;
            };
        }
        return 0;
    }

    /** @return the largest scroll offset of what was drawn */
    private static int draw(final Terminal terminal, final TopView.Poll poll, final Map<String, double[]> rates,
                            final TopState state) {
        final Size size = terminal.getSize();
        final int width = size.getColumns() > 0 ? size.getColumns() : 80;
        final int height = size.getRows() > 0 ? size.getRows() : 24;
        final TopView.Poll p = poll != null ? poll
                : new TopView.Poll(Map.of(), null, "connecting...", System.nanoTime());
        final TopView.Screen screen = TopView.draw(p, rates, state, width, height, LocalTime.now().format(CLOCK));
        final List<String> lines = screen.lines();
        final PrintWriter w = terminal.writer();
        terminal.puts(Capability.cursor_home);
        for (int i = 0; i < lines.size(); i++) {
            w.print(lines.get(i));
            terminal.puts(Capability.clr_eol);
            if (i < lines.size() - 1) {
                w.print("\r\n");
            }
        }
        terminal.flush();
        return screen.maxScroll();
    }

    /**
     * One round of queries: status and peers always, then what the state's view needs ({@link
     * TopView#sourcesFor}). Answers not fetched this round are kept from the previous one. When the daemon is
     * unreachable the previous answers stay, with the error. The Gateway view's answers come from {@code gateway}
     * (null: none).
     */
    static TopView.Poll poll(final ControlClient client, final ControlClient gateway, final TopView.Poll before,
            final TopState state) {
        final long now = System.nanoTime();
        final JsonNode status;
        try {
            status = data(client, "show_status", null);
        } catch (final ControlClientException e) {
            return before == null ? new TopView.Poll(Map.of(), null, e.getMessage(), now)
                    : new TopView.Poll(before.data(), before.graphsFor(), e.getMessage(), before.atNanos());
        }
        final Map<TopView.Source, JsonNode> data = new EnumMap<>(TopView.Source.class);
        if (before != null) {
            data.putAll(before.data());
        }
        String graphsFor = before == null ? null : before.graphsFor();
        put(data, TopView.Source.STATUS, status);
        put(data, TopView.Source.PEERS, quiet(client, "show_peers", null));
        for (final TopView.Source s : TopView.sourcesFor(state.tab())) {
            switch (s) {
                case HISTORY -> put(data, s, quiet(client, s.command, ControlJson.MAPPER.createObjectNode()
                        .put("window", "60s").put("granularity", "1s")));
                case GRAPHS -> {
                    final TopGraphs.Request r = TopGraphs.request(state, data.get(TopView.Source.STATS_PEERS));
                    if (r != null) {
                        put(data, s, quiet(client, r.command(), r.params()));
                        graphsFor = r.key();
                    }
                }
                // fips-gateway's socket; a gateway that is not running leaves these absent
                case GATEWAY, GATEWAY_MAPPINGS ->
                        put(data, s, gateway == null ? null : quiet(gateway, s.command, null));
                default -> put(data, s, quiet(client, s.command, null));
            }
        }
        return new TopView.Poll(data, graphsFor, null, now);
    }

    private static void put(final Map<TopView.Source, JsonNode> data, final TopView.Source s, final JsonNode v) {
        if (v == null) {
            data.remove(s);
        } else {
            data.put(s, v);
        }
    }

    private static JsonNode quiet(final ControlClient client, final String command, final JsonNode params) {
        try {
            return data(client, command, params);
        } catch (final ControlClientException e) {
            return null;
        }
    }

    /** @return the response's data, or null when the daemon answered with an error (an older daemon) */
    private static JsonNode data(final ControlClient client, final String command, final JsonNode params)
            throws ControlClientException {
        final ObjectNode r = client.send(command, params);
        return "ok".equals(r.path("status").asText()) ? r.get("data") : null;
    }
}
