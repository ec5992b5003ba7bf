package net.fips.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.function.Function;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import net.fips.control.ctl.ControlClient;
import net.fips.control.ctl.ControlClientException;
import net.fips.control.ctl.ControlJson;
import net.fips.control.config.ControlSocketPaths;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * {@code fipsctl}: sends one request to the daemon's control socket and prints the answer. Thin by design: the
 * daemon does the work, this parses arguments, builds the request and renders the response.
 */
@Command(name = "fipsctl", mixinStandardHelpOptions = true, versionProvider = Version.class,
        description = "Control a running FIPS daemon.",
        subcommands = {ShowCommand.class, AclCommand.class, StatsCommand.class, ConnectCommand.class,
            DisconnectCommand.class, TopCommand.class, KeygenCommand.class, CompletionCommand.class},
        footer = {"",
            "Output: a readable table on a terminal; when stdout is not a terminal (a pipe,",
            "$(...), a file) the response's data as pretty JSON, as the reference fipsctl",
            "prints it. --json and --table force either.",
            "Exit status: 0 ok; 1 the daemon refused the command (message on stderr) or a",
            "local check failed; 2 the daemon could not be reached (no socket, no",
            "permission, no answer); 64 bad usage.",
            "Socket: --socket, else /run/fips/control.sock when /run/fips exists, else",
            "$XDG_RUNTIME_DIR/fips/control.sock, else /tmp/fips-control.sock."})
public final class FipsCtl implements Callable<Integer> {

    /** Exit status: success. */
    public static final int EXIT_OK = 0;
    /** Exit status: the daemon answered with an error, or a local check refused the arguments. */
    public static final int EXIT_COMMAND_ERROR = 1;
    /** Exit status: no usable answer from the daemon. */
    public static final int EXIT_NO_DAEMON = 2;
    /** Exit status: invalid command line (EX_USAGE). */
    public static final int EXIT_USAGE = 64;

    @Spec
    CommandSpec spec;

    @Option(names = {"-s", "--socket"}, paramLabel = "PATH", description = "Control socket path.")
    Path socket;

    @Option(names = "--json", scope = ScopeType.INHERIT,
            description = "Print the response data as pretty JSON (the default when stdout is not a terminal).")
    boolean json;

    @Option(names = "--table", scope = ScopeType.INHERIT,
            description = "Print a readable table even when stdout is not a terminal.")
    boolean table;

    /** Whether the process's stdout is a terminal; replaceable so tests can play either side. */
    static java.util.function.BooleanSupplier stdoutIsTerminal = () -> {
        final java.io.Console c = System.console();
        return c != null && c.isTerminal();
    };

    @Option(names = "--hosts-file", paramLabel = "FILE", hidden = true, defaultValue = "/etc/fips/hosts",
            description = "Hosts file for peer names (default: ${DEFAULT-VALUE}).")
    Path hostsFile;

    @Override
    public Integer call() {
        throw new CommandLine.ParameterException(spec.commandLine(), "Missing required subcommand");
    }

    /** @return a command line with fipsctl's exit-code conventions, ready to {@code execute} */
    public static CommandLine commandLine() {
        final CommandLine cl = new CommandLine(new FipsCtl());
        setUsageExitCode(cl);
        return cl;
    }

    // The invalid-input exit code is per command spec; usage errors are raised by the innermost subcommand.
    private static void setUsageExitCode(final CommandLine cl) {
        cl.getCommandSpec().exitCodeOnInvalidInput(EXIT_USAGE);
        cl.getSubcommands().values().forEach(FipsCtl::setUsageExitCode);
    }

    /**
     * @param args command-line arguments
     */
    public static void main(final String[] args) {
        System.exit(commandLine().execute(args));
    }

    PrintWriter out() {
        return spec.commandLine().getOut();
    }

    PrintWriter err() {
        return spec.commandLine().getErr();
    }

    /**
     * Sends one request and prints the outcome.
     *
     * @param command command name
     * @param params  parameters, or null
     * @param table   renders {@code data} as the default table view
     * @return the exit status
     */
    /** @return true when output is JSON: --json, or no --table and stdout is not a terminal */
    boolean asJson() {
        if (json && table) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--json and --table exclude each other");
        }
        return json || !table && !stdoutIsTerminal.getAsBoolean();
    }

    int request(final String command, final ObjectNode params, final Function<JsonNode, String> table) {
        return request(command, params, table, false);
    }

    /**
     * Sends one request and prints the outcome.
     *
     * @param command    command name
     * @param params     parameters, or null
     * @param render     renders {@code data} as text
     * @param renderOnly always use {@code render}, even for --json or a pipe ({@code stats history --plot})
     * @return the exit status
     */
    int request(final String command, final ObjectNode params, final Function<JsonNode, String> render,
                final boolean renderOnly) {
        final Path path = socket != null ? socket : ControlSocketPaths.defaultControlSocket();
        final ObjectNode response;
        try {
            response = new ControlClient(path, ControlClient.DEFAULT_TIMEOUT).send(command, params);
        } catch (final ControlClientException e) {
            err().println("error: " + e.getMessage());
            err().flush();
            return EXIT_NO_DAEMON;
        }
        if ("error".equals(response.path("status").asText())) {
            err().println("error: " + response.path("message").asText("unknown error"));
            err().flush();
            return EXIT_COMMAND_ERROR;
        }
        final JsonNode data = response.has("data") ? response.get("data") : response;
        out().println(!renderOnly && asJson() ? ControlJson.pretty(data) : render.apply(data));
        out().flush();
        return EXIT_OK;
    }

    /**
     * Prints a local refusal the way daemon errors are printed.
     *
     * @param message the text after {@code error: }
     * @return {@link #EXIT_COMMAND_ERROR}
     */
    int fail(final String message) {
        err().println("error: " + message);
        err().flush();
        return EXIT_COMMAND_ERROR;
    }
}
