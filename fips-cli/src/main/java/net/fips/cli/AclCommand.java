package net.fips.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;

/** {@code fipsctl acl show}: the loaded peer ACL. */
@Command(name = "acl", description = "Show peer ACL information.", mixinStandardHelpOptions = true,
        synopsisSubcommandLabel = "show")
final class AclCommand {

    @ParentCommand
    FipsCtl root;

    @Command(name = "show", mixinStandardHelpOptions = true, description = "Loaded peer ACL state.")
    int show() {
        return root.request(Query.ACL);
    }
}
