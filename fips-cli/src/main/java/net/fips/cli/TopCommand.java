package net.fips.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import org.jline.terminal.Attributes;
import org.jline.terminal.Size;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;
import org.jline.utils.InfoCmp.Capability;
import org.jline.utils.NonBlockingReader;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import net.fips.control.config.ControlSocketPaths;
import net.fips.control.ctl.ControlClient;
import net.fips.control.ctl.ControlClientException;
import net.fips.control.ctl.ControlJson;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code fipsctl top}: a live full-screen view of the node in the spirit of the reference's {@code fipstop}. It
 * polls the control socket (status, peers, sessions, tree, the last minute of stats history, listening sockets)
 * on a background thread and redraws from the latest answers on the alternate screen; {@code q} (or Ctrl-C)
 * quits and restores the terminal, Tab / Shift-Tab switch views. When the daemon cannot be reached the view says
 * so and keeps retrying. Without a terminal it prints an error and exits 64.
 *
 * <p>The terminal is driven through JLine's exec provider ({@code stty}), so no native access is needed.
 */
@Command(name = "top", mixinStandardHelpOptions = true,
        description = {"Live full-screen view of the node (q quits, Tab switches views).",
            "Needs a terminal; polls the control socket every --refresh seconds."})
final class TopCommand implements Callable<Integer> {
    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss");
    private static final Duration QUERY_TIMEOUT = Duration.ofSeconds(2);

    /** Whether stdin and stdout are a terminal; replaceable by tests. */
    static BooleanSupplier isTerminal = () -> {
        final java.io.Console c = System.console();
        return c != null && c.isTerminal();
    };

    @ParentCommand
    FipsCtl root;

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
            return run(terminal, client, periodNanos);
        }
    }

    private int run(final Terminal terminal, final ControlClient client, final long periodNanos)
            throws IOException {
        final AtomicBoolean quit = new AtomicBoolean();
        final AtomicBoolean dirty = new AtomicBoolean(true);
        final AtomicReference<TopView.Poll> latest = new AtomicReference<>();
        final AtomicReference<Map<String, double[]>> rates = new AtomicReference<>(Map.of());
        final Thread mainThread = Thread.currentThread();
        final AtomicReference<TopView.Tab> tab = new AtomicReference<>(TopView.Tab.NODE);

        final Thread poller = Thread.ofPlatform().daemon().name("fipsctl-top-poll").start(() -> {
            while (!quit.get()) {
                final long start = System.nanoTime();
                final TopView.Poll before = latest.get();
                final TopView.Poll now = poll(client, before, tab.get() == TopView.Tab.NODE);
                rates.set(TopView.rates(before, now));
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
        try {
            final NonBlockingReader reader = terminal.reader();
            while (!quit.get()) {
                if (dirty.getAndSet(false)) {
                    draw(terminal, latest.get(), rates.get(), tab.get());
                }
                final int c = reader.read(100L);
                if (c == NonBlockingReader.EOF) {
                    break;
                }
                if (c == 'q' || c == 'Q' || c == 3) {
                    quit.set(true);
                } else if (c == '\t') {
                    tab.set(tab.get().next());
                    dirty.set(true);
                } else if (c == 27) {
                    // Shift-Tab arrives as ESC [ Z; a lone Escape is ignored.
                    if (reader.peek(50L) == '[') {
                        reader.read();
                        if (reader.peek(50L) == 'Z') {
                            reader.read();
                            tab.set(tab.get().previous());
                            dirty.set(true);
                        }
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

    private static void draw(final Terminal terminal, final TopView.Poll poll, final Map<String, double[]> rates,
                             final TopView.Tab tab) {
        final Size size = terminal.getSize();
        final int width = size.getColumns() > 0 ? size.getColumns() : 80;
        final int height = size.getRows() > 0 ? size.getRows() : 24;
        final TopView.Poll p = poll != null ? poll
                : new TopView.Poll(null, null, null, null, null, null, "connecting...", System.nanoTime());
        final List<String> lines = TopView.render(p, rates, tab, width, height, LocalTime.now().format(CLOCK));
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
    }

    /** One round of queries. When the daemon is unreachable the previous answers stay, with the error. */
    static TopView.Poll poll(final ControlClient client, final TopView.Poll before, final boolean withListening) {
        final long now = System.nanoTime();
        final JsonNode status;
        try {
            status = data(client, "show_status", null);
        } catch (final ControlClientException e) {
            return before == null ? new TopView.Poll(null, null, null, null, null, null, e.getMessage(), now)
                    : new TopView.Poll(before.status(), before.peers(), before.sessions(), before.tree(),
                    before.history(), before.listening(), e.getMessage(), before.atNanos());
        }
        final ObjectNode window = ControlJson.MAPPER.createObjectNode().put("window", "60s")
                .put("granularity", "1s");
        return new TopView.Poll(status, quiet(client, "show_peers", null), quiet(client, "show_sessions", null),
                quiet(client, "show_tree", null), quiet(client, "show_stats_all_history", window),
                withListening ? quiet(client, "show_listening_sockets", null) : before == null ? null
                        : before.listening(), null, now);
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
