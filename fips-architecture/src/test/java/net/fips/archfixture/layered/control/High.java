package net.fips.archfixture.layered.control;

/** Fixture: a control-plane class. */
public final class High {
}
