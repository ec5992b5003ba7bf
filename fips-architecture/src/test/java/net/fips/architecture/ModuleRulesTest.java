package net.fips.architecture;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Each rule of {@link ModuleRules} fails on a fixture that breaks it and passes on one that does not, so
 * {@link ArchitectureTest} passing means something. Fixtures: {@code net.fips.archfixture.*}, test classes only.
 */
class ModuleRulesTest {
    private static final String CYCLIC = "net.fips.archfixture.cyclic";
    private static final String CLEAN = "net.fips.archfixture.clean";
    private static final String LAYERED = "net.fips.archfixture.layered";
    private static final String HELPERS_MISUSED = "net.fips.archfixture.helpersmisused";

    private static JavaClasses fixtures;

    @BeforeAll
    static void importFixtures() {
        fixtures = new ClassFileImporter().importPackages("net.fips.archfixture");
    }

    private static boolean violated(final ArchRule rule) {
        return rule.evaluate(fixtures).hasViolation();
    }

    @Test
    void aPackageCycleIsReported() {
        assertTrue(violated(ModuleRules.noPackageCycle(CYCLIC, "control")));
        assertFalse(violated(ModuleRules.noPackageCycle(CLEAN, "control")));
    }

    @Test
    void theDataPlaneUsingTheControlPlaneIsReported() {
        assertTrue(violated(ModuleRules.nothingAbove(LAYERED, "dataplane")));
        assertFalse(violated(ModuleRules.nothingAbove(LAYERED, "control")));
    }

    @Test
    void theCliUsingADataPlaneClassOffTheAllowListIsReported() {
        final String allowed = LAYERED + ".dataplane.Allowed";
        final String low = LAYERED + ".dataplane.Low";
        assertTrue(violated(ModuleRules.cliOnlyThroughControl(LAYERED, Set.of(allowed))));
        assertFalse(violated(ModuleRules.cliOnlyThroughControl(LAYERED, Set.of(allowed, low))));
    }

    @Test
    void mainCodeUsingTheTestHelpersAndHelpersUsingAModuleAreReported() {
        assertTrue(violated(ModuleRules.noMainCodeUsesTheTestHelpers(HELPERS_MISUSED)));
        assertTrue(violated(ModuleRules.theTestHelpersUseNoModule(HELPERS_MISUSED)));
        assertFalse(violated(ModuleRules.noMainCodeUsesTheTestHelpers(LAYERED)));
        assertFalse(violated(ModuleRules.theTestHelpersUseNoModule(LAYERED)));
    }

    @Test
    void theFixturesWereImported() {
        assertTrue(fixtures.containPackage(CYCLIC + ".control.a"));
        assertTrue(fixtures.containPackage(LAYERED + ".cli"));
        assertTrue(fixtures.containPackage(LAYERED + ".testing"));
        assertTrue(fixtures.containPackage(HELPERS_MISUSED + ".testing"));
    }
}
