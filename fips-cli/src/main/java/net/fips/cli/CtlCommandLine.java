package net.fips.cli;

import picocli.CommandLine;

/**
 * fipsctl's picocli command line. Kept out of {@link FipsCtl}: the Java launcher resolves every type in the main
 * class's method signatures before it calls {@code main}, so a method returning {@link CommandLine} there would load
 * picocli on {@link QuickCtl}'s path too.
 */
final class CtlCommandLine {
    private CtlCommandLine() {
    }

    /** @return a command line with fipsctl's exit-code conventions, ready to {@code execute} */
    static CommandLine create() {
        final CommandLine cl = new CommandLine(new FipsCtl());
        setUsageExitCode(cl);
        return cl;
    }

    // The invalid-input exit code is per command spec; usage errors are raised by the innermost subcommand.
    private static void setUsageExitCode(final CommandLine cl) {
        cl.getCommandSpec().exitCodeOnInvalidInput(FipsCtl.EXIT_USAGE);
        cl.getSubcommands().values().forEach(CtlCommandLine::setUsageExitCode);
    }
}
