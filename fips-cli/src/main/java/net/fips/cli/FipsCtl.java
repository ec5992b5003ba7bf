package net.fips.cli;

import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.function.Function;
import java.io.Console;
import java.util.function.BooleanSupplier;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

import net.fips.control.ctl.ControlClient;
import net.fips.control.ctl.ControlClientException;
import net.fips.control.config.ControlSocketPaths;

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
    static BooleanSupplier stdoutIsTerminal = () -> {
        final Console c = System.console();
        return c != null && c.isTerminal();
    };

    @Option(names = "--hosts-file", paramLabel = "FILE", hidden = true, defaultValue = "/etc/fips/hosts",
            description = "Hosts file for peer names (default: ${DEFAULT-VALUE}).")
    Path hostsFile;

    @Override
    public Integer call() {
        throw UsageError.of(spec, "Missing required subcommand");
    }

    /**
     * @param args command-line arguments
     */
    public static void main(final String[] args) {
        // The writers picocli would make: the default charset (UTF-8), autoflush.
        final PrintWriter out = new PrintWriter(new OutputStreamWriter(System.out, Charset.defaultCharset()), true);
        final PrintWriter err = new PrintWriter(new OutputStreamWriter(System.err, Charset.defaultCharset()), true);
        final int quick = QuickCtl.run(args, out, err);
        System.exit(quick != QuickCtl.NOT_HANDLED ? quick : CtlCommandLine.create().execute(args));
    }

    /**
     * Runs one fipsctl command line as {@link #main} does, writing to the given streams: the parameterless queries
     * in their plain spellings through {@link QuickCtl}, which answers without initialising picocli (most of a
     * call's start-up time), everything else through picocli.
     *
     * @param args command-line arguments
     * @param out  standard output
     * @param err  standard error
     * @return the exit status
     */
    public static int run(final String[] args, final PrintWriter out, final PrintWriter err) {
        final int quick = QuickCtl.run(args, out, err);
        if (quick != QuickCtl.NOT_HANDLED) {
            return quick;
        }
        final CommandLine cl = CtlCommandLine.create();
        cl.setOut(out);
        cl.setErr(err);
        return cl.execute(args);
    }

    PrintWriter out() {
        return spec.commandLine().getOut();
    }

    PrintWriter err() {
        return spec.commandLine().getErr();
    }

    /** @return true when output is JSON: --json, or no --table and stdout is not a terminal */
    boolean asJson() {
        if (json && table) {
            throw UsageError.of(spec, "--json and --table exclude each other");
        }
        return json || !table && !stdoutIsTerminal.getAsBoolean();
    }

    /**
     * Sends one request and prints the outcome.
     *
     * @param command command name
     * @param params  parameters, or null
     * @param table   renders {@code data} as the default table view
     * @return the exit status
     */
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
        return exchange(path, command, params, render, renderOnly || !asJson(), out(), err());
    }

    /**
     * @param query a parameterless query
     * @return the exit status
     */
    int request(final Query query) {
        return request(query.command, null, query.table, false);
    }

    /**
     * Sends one request to the daemon and prints the outcome: the data rendered or as pretty JSON on {@code out},
     * a refusal or a failure to reach the daemon as {@code error: ...} on {@code err}.
     *
     * @param path    the control socket
     * @param command command name
     * @param params  parameters, or null
     * @param render  renders {@code data} as text
     * @param rendered print {@code render}'s text; false prints the data as pretty JSON
     * @param out     standard output
     * @param err     standard error
     * @return the exit status
     */
    static int exchange(final Path path, final String command, final ObjectNode params,
                        final Function<JsonNode, String> render, final boolean rendered, final PrintWriter out,
                        final PrintWriter err) {
        final StringBuilder line = new StringBuilder(64).append("{\"command\":");
        JsonText.quote(line, command);
        if (params != null) {
            line.append(",\"params\":").append(JsonText.compact(params));
        }
        line.append("}\n");
        final JsonNode response;
        try {
            final byte[] answer = new ControlClient(path, ControlClient.DEFAULT_TIMEOUT)
                    .exchange(line.toString().getBytes(StandardCharsets.UTF_8));
            response = JsonText.parse(answer);
        } catch (final ControlClientException e) {
            err.println("error: " + e.getMessage());
            err.flush();
            return EXIT_NO_DAEMON;
        } catch (final JsonText.JsonTextException e) {
            err.println("error: invalid response JSON from " + path + ": " + e.getMessage());
            err.flush();
            return EXIT_NO_DAEMON;
        }
        if (!response.isObject() || !response.path("status").isTextual()) {
            err.println("error: invalid response from " + path + ": not a status object");
            err.flush();
            return EXIT_NO_DAEMON;
        }
        if ("error".equals(response.path("status").asText())) {
            err.println("error: " + response.path("message").asText("unknown error"));
            err.flush();
            return EXIT_COMMAND_ERROR;
        }
        final JsonNode data = response.has("data") ? response.get("data") : response;
        out.println(rendered ? render.apply(data) : JsonText.pretty(data));
        out.flush();
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
