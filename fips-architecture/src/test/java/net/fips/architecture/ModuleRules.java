package net.fips.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import java.util.List;
import java.util.Set;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;

/**
 * The package rules of CONTRIBUTING.md "Modules: dependencies point one way", as ArchUnit rules over a base package
 * ({@code net.fips} for the real modules, a fixture package in the tests that prove each rule can fail). Each module
 * is one subpackage of the base: {@code ffm}, {@code dataplane}, {@code control}, {@code cli}, {@code sim},
 * {@code gateway}; the shared test helpers of fips-test-fixtures are {@link #TESTING}, apart from them.
 */
final class ModuleRules {
    /** The module root packages, lowest first. */
    static final List<String> MODULES = List.of("ffm", "dataplane", "control", "cli", "sim", "gateway");
    /** The package root of fips-test-fixtures: helpers for tests, which no module's main code may use. */
    static final String TESTING = "testing";

    private ModuleRules() {
    }

    /**
     * No cycle among the packages of one module: every package is its own slice (a subpackage such as
     * {@code control.ble.dbus} is a slice apart from {@code control.ble}).
     *
     * @param base   the base package
     * @param module a name from {@link #MODULES}
     * @return the rule
     */
    static ArchRule noPackageCycle(final String base, final String module) {
        return slices().assignedFrom(packagesUnder(base + "." + module)).should().beFreeOfCycles()
                .allowEmptyShould(true);
    }

    /**
     * A module depends on none above it: ffm on nothing of ours, dataplane only on ffm, control not on cli or sim.
     *
     * @param base   the base package
     * @param module {@code ffm}, {@code dataplane} or {@code control}
     * @return the rule
     */
    static ArchRule nothingAbove(final String base, final String module) {
        final int at = MODULES.indexOf(module);
        final String[] above = MODULES.subList(at + 1, MODULES.size()).stream()
                .map(m -> base + "." + m + "..").toArray(String[]::new);
        return noClasses().that().resideInAPackage(base + "." + module + "..")
                .should().dependOnClassesThat().resideInAnyPackage(above)
                .allowEmptyShould(true);
    }

    /**
     * The CLI goes through the control plane: of the data plane (and the FFM bindings) it may use only the classes
     * named in {@code allowed} (top-level class names; their nested classes count as them).
     *
     * @param base    the base package
     * @param allowed fully qualified top-level class names
     * @return the rule
     */
    static ArchRule cliOnlyThroughControl(final String base, final Set<String> allowed) {
        return onlyThroughControl(base, "cli", allowed);
    }

    /**
     * A front-end module ({@code cli}, {@code gateway}) goes through the control plane: of the data plane (and the
     * FFM bindings) it may use only the classes named in {@code allowed}.
     *
     * @param base    the base package
     * @param module  the front-end module
     * @param allowed fully qualified top-level class names
     * @return the rule
     */
    static ArchRule onlyThroughControl(final String base, final String module, final Set<String> allowed) {
        final DescribedPredicate<JavaClass> belowControl = DescribedPredicate.describe(
                "are in " + base + ".dataplane.. or " + base + ".ffm.. and not on the allow-list " + allowed,
                c -> (inModule(c, base + ".dataplane") || inModule(c, base + ".ffm"))
                        && !allowed.contains(topLevelName(c)));
        return noClasses().that().resideInAPackage(base + "." + module + "..")
                .should().dependOnClassesThat(belowControl)
                .allowEmptyShould(true);
    }

    /**
     * No main class of a module uses the test helpers (they are a test-scoped dependency, so a use would compile in
     * the tests only and fail at run time, or drag test code into the product).
     *
     * @param base the base package
     * @return the rule
     */
    static ArchRule noMainCodeUsesTheTestHelpers(final String base) {
        final String[] modules = MODULES.stream().map(m -> base + "." + m + "..").toArray(String[]::new);
        return noClasses().that().resideInAnyPackage(modules)
                .should().dependOnClassesThat().resideInAPackage(base + "." + TESTING + "..")
                .allowEmptyShould(true);
    }

    /**
     * The test helpers depend on no module of ours, so that every module's tests, fips-ffm-bindings' included, can
     * use them without a cycle.
     *
     * @param base the base package
     * @return the rule
     */
    static ArchRule theTestHelpersUseNoModule(final String base) {
        final String[] modules = MODULES.stream().map(m -> base + "." + m + "..").toArray(String[]::new);
        return noClasses().that().resideInAPackage(base + "." + TESTING + "..")
                .should().dependOnClassesThat().resideInAnyPackage(modules)
                .allowEmptyShould(true);
    }

    private static boolean inModule(final JavaClass c, final String root) {
        final String p = c.getPackageName();
        return p.equals(root) || p.startsWith(root + ".");
    }

    private static String topLevelName(final JavaClass c) {
        final String name = c.getName();
        final int dollar = name.indexOf('$');
        return dollar < 0 ? name : name.substring(0, dollar);
    }

    /** Each package at or under {@code root} is one slice; every other class is ignored. */
    private static SliceAssignment packagesUnder(final String root) {
        return new SliceAssignment() {
            @Override
            public SliceIdentifier getIdentifierOf(final JavaClass c) {
                final String p = c.getPackageName();
                return p.equals(root) || p.startsWith(root + ".") ? SliceIdentifier.of(p) : SliceIdentifier.ignore();
            }

            @Override
            public String getDescription() {
                return "the packages under " + root;
            }
        };
    }
}
