package net.fips.archfixture.layered.dataplane;

/** Fixture: a data-plane class on the CLI's allow-list. */
public final class Allowed {
}
