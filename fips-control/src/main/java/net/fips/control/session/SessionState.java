package net.fips.control.session;

/** The state of the session with one remote node address (spec routing-session §5.2). */
public enum SessionState {
    /** We sent SessionSetup and wait for SessionAck. */
    INITIATING,
    /** We answered a SessionSetup with SessionAck and wait for SessionMsg3. */
    AWAITING_MSG3,
    /** Keys are derived; data flows. */
    ESTABLISHED
}
