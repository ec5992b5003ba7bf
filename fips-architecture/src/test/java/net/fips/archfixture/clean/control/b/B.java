package net.fips.archfixture.clean.control.b;

/** Fixture: the lower package, using nothing of a. */
public final class B {
}
