package net.fips.control.identity;

import net.fips.dataplane.wire.NodeAddr;

/**
 * What a node of the in-memory mesh harnesses (discovery's {@code TestMesh}, session's {@code SessionBus}) is before
 * the subsystem under test is wired to it: its index in the harness, its identity and address, and the identity
 * cache it learns its peers' keys into (what promotion or a DNS lookup does in a real node).
 */
public abstract class TestNode {
    /** The node's index in its harness. */
    public final int index;
    /** Its identity. */
    public final NodeIdentity identity;
    /** Its address, from the identity. */
    public final NodeAddr addr;
    /** The peer identities it knows. */
    public final IdentityCache identities = new IdentityCache();

    /**
     * @param index    the node's index in its harness
     * @param identity its identity
     */
    protected TestNode(final int index, final NodeIdentity identity) {
        this.index = index;
        this.identity = identity;
        this.addr = identity.nodeAddr();
    }

    /** Knows {@code other}'s key from {@code nowNanos} on. */
    protected final void register(final TestNode other, final long nowNanos) {
        identities.register(other.identity.toPeer(), nowNanos);
    }
}
