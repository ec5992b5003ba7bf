package net.fips.architecture;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The package structure of the compiled main classes of every module (not their tests): no package cycle inside a
 * module, no dependency against the module order, the CLI reaching the data plane only through the allow-list
 * below, and the test helpers of fips-test-fixtures used by no main class and using none. {@link ModuleRulesTest}
 * shows each rule failing on a fixture that breaks it.
 */
class ArchitectureTest {
    /**
     * What fips-cli may use of the data plane directly, and why; anything else goes through fips-control.
     */
    static final Set<String> CLI_DATAPLANE_ALLOWED = Set.of(
            // FipsDaemon: the daemon's shutdown summary reads the data plane's counters of the running node
            "net.fips.dataplane.engine.DataPlane",
            "net.fips.dataplane.engine.DataPlaneCounter",
            // PathWarmup, DaemonTraining: JIT warm-up and the AOT training run drive the packet path and the AEAD
            // directly, without a node
            "net.fips.dataplane.engine.PathExercise",
            "net.fips.dataplane.crypto.AeadCipher",
            "net.fips.dataplane.crypto.AeadCiphers",
            // DaemonTraining: the training nodes' TUN devices are stand-ins (a socket pair) and the training drives a
            // TCP stream's packets through them as the kernel would (docs/benchmarks.md, "The JIT ramp")
            "net.fips.dataplane.tun.TunStandIn",
            "net.fips.dataplane.tun.StandInTcpStream",
            "net.fips.dataplane.tun.StandInTcpStream$Result");

    private static JavaClasses classes;

    @BeforeAll
    static void importMainClasses() {
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("net.fips");
    }

    @Test
    void everyModuleIsOnTheClassPath() {
        for (final String m : ModuleRules.MODULES) {
            assertTrue(classes.containPackage("net.fips." + m), "no main classes of net.fips." + m + " imported");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"ffm", "dataplane", "control", "cli", "sim", "gateway"})
    void noPackageCycleInsideAModule(final String module) {
        ModuleRules.noPackageCycle("net.fips", module).check(classes);
    }

    @ParameterizedTest
    @ValueSource(strings = {"ffm", "dataplane", "control"})
    void noModuleDependsOnOneAbove(final String module) {
        ModuleRules.nothingAbove("net.fips", module).check(classes);
    }

    @Test
    void theCliUsesTheDataPlaneOnlyThroughItsAllowList() {
        ModuleRules.cliOnlyThroughControl("net.fips", CLI_DATAPLANE_ALLOWED).check(classes);
    }

    @Test
    void theTestHelpersStayApartFromTheProduct() {
        assertTrue(classes.containPackage("net.fips." + ModuleRules.TESTING), "fips-test-fixtures not imported");
        ModuleRules.noMainCodeUsesTheTestHelpers("net.fips").check(classes);
        ModuleRules.theTestHelpersUseNoModule("net.fips").check(classes);
    }

    @Test
    void theGatewayUsesNoDataPlaneClass() {
        ModuleRules.onlyThroughControl("net.fips", "gateway", Set.of()).check(classes);
    }
}
