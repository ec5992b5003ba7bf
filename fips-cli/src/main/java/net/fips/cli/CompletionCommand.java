package net.fips.cli;

import java.util.concurrent.Callable;

import picocli.AutoComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;

/** {@code fipsctl completion}: prints a bash/zsh completion script (source it, or save it to a completion dir). */
@Command(name = "completion", mixinStandardHelpOptions = true,
        description = {"Print a bash completion script for fipsctl.",
            "Use: source <(fipsctl completion)"})
final class CompletionCommand implements Callable<Integer> {

    @ParentCommand
    FipsCtl root;

    @Override
    public Integer call() {
        root.out().print(AutoComplete.bash("fipsctl", root.spec.commandLine()));
        root.out().flush();
        return FipsCtl.EXIT_OK;
    }
}
