package net.fips.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.logging.Logger;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import net.fips.control.config.ConfigException;
import net.fips.control.config.ConfigSources;
import net.fips.control.config.LoadedConfig;
import net.fips.control.config.NodeConfig;
import net.fips.control.node.Node;
import net.fips.control.node.NodeOptions;
import net.fips.control.node.NodeStartException;
import net.fips.dataplane.engine.DataPlaneCounter;

/**
 * The {@code fips} daemon: loads the configuration (operator.md §1.1), starts a {@link Node} and runs in the
 * foreground, logging to stderr, until SIGTERM or SIGINT; then it says goodbye to its peers, removes its control
 * socket and exits 0. SIGHUP reloads what can change while running ({@link Node#reload}: peer ACL, hosts file,
 * log level) and logs which changed settings need a restart.
 */
@Command(name = "fips", mixinStandardHelpOptions = true, versionProvider = Version.class,
        description = "Run a FIPS mesh node in the foreground.",
        footer = {"",
            "Config: -c FILE, else $FIPS_CONFIG, else every file of /etc/fips/fips.yaml,",
            "$XDG_CONFIG_HOME/fips/fips.yaml (or ~/.config/fips/fips.yaml), ~/.fips.yaml and",
            "./fips.yaml that exists, later ones overriding; with none, a built-in default",
            "(ephemeral identity, UDP on 0.0.0.0:2121).",
            "--check validates the config (and a persistent identity's key file) without",
            "starting anything and prints one OK line or every problem.",
            "Start-up: bin/fips and /usr/bin/fips first compile the packet path through two",
            "loopback nodes (at most 10 s of stream; FIPS_DAEMON_WARMUP=SECONDS, 0: off).",
            "Exit status: 0 clean stop (SIGTERM/SIGINT) or --check OK; 1 the node could not",
            "start; 64 bad usage; 78 invalid configuration or key file (every problem is listed)."})
public final class FipsDaemon implements Callable<Integer> {
    /** Exit status: stopped cleanly. */
    public static final int EXIT_OK = 0;
    /** Exit status: the node failed to start (port in use, control socket busy, ...). */
    public static final int EXIT_START_FAILED = 1;
    /** Exit status: invalid command line (EX_USAGE). */
    public static final int EXIT_USAGE = 64;
    /** Exit status: invalid configuration or key file (EX_CONFIG). */
    public static final int EXIT_CONFIG = 78;

    private static final Logger LOG = Logger.getLogger(FipsDaemon.class.getName());

    @Spec
    CommandSpec spec;

    @Option(names = {"-c", "--config"}, paramLabel = "FILE", description = "Read only this config file.")
    Path config;

    @Option(names = "--log-level", paramLabel = "LEVEL",
            description = "trace, debug, info, warn or error; overrides node.log_level and RUST_LOG.")
    NodeConfig.LogLevel logLevel;

    @Option(names = "--check", description = "Validate the configuration and key file, start nothing, exit.")
    boolean check;

    /** Where the configuration comes from; tests replace it to run without the host's files. */
    ConfigSources sources = ConfigSources.system();

    private final CountDownLatch stop = new CountDownLatch(1);
    private volatile NodeConfig.LogLevel currentLevel = NodeConfig.LogLevel.INFO;
    private volatile String stopSignal = "";

    @Override
    public Integer call() {
        final PrintWriter err = spec.commandLine().getErr();
        if (check) {
            return ConfigCheck.run(sources, Optional.ofNullable(config), spec.commandLine().getOut(), err);
        }
        final LoadedConfig loaded;
        try {
            loaded = sources.load(Optional.ofNullable(config));
        } catch (final ConfigException e) {
            printConfigProblems(err, e);
            return EXIT_CONFIG;
        }
        LogSetup.install(logLevel != null ? logLevel : loaded.effectiveLogLevel());
        LOG.info("fips " + Version.VERSION + " starting; config: " + (loaded.files().isEmpty()
                ? "built-in default" : String.join(" + ", loaded.files().stream().map(Path::toString).toList())));

        for (final String name : new String[] {"TERM", "INT"}) {
            warnIfIgnored(name, Signals.handle(name, s -> {
                stopSignal = "SIG" + s;
                stop.countDown();
            }), "it will not stop the daemon");
        }
        currentLevel = logLevel != null ? logLevel : loaded.effectiveLogLevel();
        // SIGHUP is handled from before the start: the control socket answers while Node.start is still running,
        // and without a handler the JVM's default would stop the daemon. A reload asked for during the start waits
        // on the single reload thread until the node runs (and is dropped if the start fails).
        final CompletableFuture<Node> started = new CompletableFuture<>();
        final ExecutorService reloads = Executors.newSingleThreadExecutor(
                Thread.ofPlatform().name("fips-reload").daemon().factory());
        final boolean hupIgnored = Signals.handle("HUP", s -> {
            try {
                reloads.execute(() -> {
                    final Node running;
                    try {
                        running = started.join();
                    } catch (final CompletionException | CancellationException notStarted) {
                        return;
                    }
                    reload(running);
                });
            } catch (final RejectedExecutionException stopping) {
                // SIGHUP while stopping: nothing left to reload.
            }
        });
        warnIfIgnored("HUP", hupIgnored, "changes to the ACL, hosts file and log level need a restart");
        // On in bin/fips and /usr/bin/fips (FIPS_DAEMON_WARMUP, ADR 0068): the packet path compiled through two
        // loopback nodes before the real transports and fips0 open, so the first real packets run compiled code and
        // no compile competes with them. A stop signal ends it early, and the node then never starts.
        StartupWarmup.runIfConfigured(currentLevel, () -> stop.getCount() == 0);
        if (stop.getCount() == 0) {
            started.cancel(false);
            reloads.shutdownNow();
            LOG.info("stopped (" + stopSignal + ") before the node started");
            return EXIT_OK;
        }
        final Node node;
        try {
            node = Node.start(loaded, NodeOptions.defaults().version(Version.VERSION));
        } catch (final NodeStartException e) {
            started.cancel(false);
            reloads.shutdownNow();
            // Once, on stderr (the log goes there too, so logging it as well would print it twice).
            err.println("fips: " + e.getMessage());
            err.flush();
            return e.isConfigProblem() ? EXIT_CONFIG : EXIT_START_FAILED;
        }
        started.complete(node);
        // Other ways out (System.exit elsewhere) still close the node; close() is idempotent.
        Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name("fips-shutdown").unstarted(node::close));
        LOG.info("running; stop with SIGTERM or SIGINT, reload ACL, hosts and log level with SIGHUP");
        // One collection now that start-up's garbage (config parsing, key derivation, class initialisation) is
        // dead, so the heap shrinks to what the running node needs instead of staying at its start-up peak (the
        // serial collector gives heap back only after a full collection; docs/benchmarks.md, "Idle memory").
        System.gc();
        // Synthetic packets through the session path in the background, so the first real ones find it compiled.
        PathWarmup.startInBackground(() -> node.dataPlane().counter(DataPlaneCounter.SESSION_PACKETS_IN)
                + node.dataPlane().counter(DataPlaneCounter.SESSION_PACKETS_OUT) > 0);
        try {
            stop.await();
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            stopSignal = "interrupt";
        }
        LOG.info("stopping (" + stopSignal + ")");
        reloads.shutdownNow();
        node.close();
        LOG.info("fips stopped");
        return EXIT_OK;
    }

    /**
     * A signal this process inherited as ignored (a start under {@code nohup}, or a supervisor that ignores it) stays
     * ignored: the JVM installs no handler for it, so the daemon would never hear it. Said once, at start.
     */
    private static void warnIfIgnored(final String name, final boolean ignored, final String consequence) {
        if (ignored) {
            LOG.warning("SIG" + name + " is ignored by this process (inherited, e.g. from nohup): " + consequence);
        }
    }

    /**
     * SIGHUP: loads the configuration again the way it was loaded at start and lets the node apply what it can
     * ({@link Node#reload}); an invalid file changes nothing and is reported in one WARN line.
     */
    void reload(final Node node) {
        final LoadedConfig fresh;
        try {
            fresh = sources.load(Optional.ofNullable(config));
        } catch (final ConfigException e) {
            LOG.warning("SIGHUP: nothing reloaded, invalid configuration in " + e.source() + ": "
                    + String.join("; ", e.problems()));
            return;
        }
        node.reload(fresh, this::applyLogLevel);
    }

    /** Sets the log level a reloaded config asks for, unless {@code --log-level} fixed it. */
    private String applyLogLevel(final NodeConfig.LogLevel wanted) {
        final NodeConfig.LogLevel was = currentLevel;
        if (logLevel != null) {
            return "log level " + name(was) + " (fixed by --log-level)";
        }
        if (wanted == was) {
            return "log level " + name(was) + " (unchanged)";
        }
        LogSetup.setLevel(wanted);
        currentLevel = wanted;
        return "log level " + name(was) + " -> " + name(wanted);
    }

    private static String name(final NodeConfig.LogLevel l) {
        return l.name().toLowerCase(Locale.ROOT);
    }

    /** Prints a configuration's problems, one line each, under a header naming the source. */
    static void printConfigProblems(final PrintWriter err, final ConfigException e) {
        err.println("fips: invalid configuration in " + e.source() + ":");
        for (final String p : e.problems()) {
            err.println("  " + p);
        }
        err.flush();
    }

    /** @return a command line with the daemon's exit-code conventions, ready to {@code execute} */
    public static CommandLine commandLine() {
        return commandLine(new FipsDaemon());
    }

    static CommandLine commandLine(final FipsDaemon daemon) {
        final CommandLine cl = new CommandLine(daemon);
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        cl.getCommandSpec().exitCodeOnInvalidInput(EXIT_USAGE);
        return cl;
    }

    /**
     * @param args command-line arguments
     */
    public static void main(final String[] args) {
        System.exit(commandLine().execute(args));
    }
}
