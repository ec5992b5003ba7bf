package net.fips.dataplane.engine;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

import net.fips.dataplane.route.ForwardingTable;
import net.fips.dataplane.wire.Coords;
import net.fips.dataplane.wire.NodeAddr;

/**
 * The control thread builds a {@link ForwardingTable} and publishes it through
 * {@link ForwardingTableHolder#set} (release) while a worker reads it with {@code get} (acquire) and
 * routes with it: a worker that sees the new snapshot must see it fully built (peer count, the peer's link id and
 * MTU, its address index). The table is built inside the actor, not in the state's constructor, so nothing but
 * the holder publishes it. r1: peer count seen (-1: no table yet), r2: the peer's MTU, r3: its link id, r4: the
 * index the table's address lookup gives for the peer.
 */
@JCStressTest
@Description("ForwardingTableHolder: a worker that sees the new snapshot sees its contents fully built")
@Outcome(id = "-1, 0, 0, 0", expect = Expect.ACCEPTABLE, desc = "no table published yet")
@Outcome(id = "1, 1280, 42, 0", expect = Expect.ACCEPTABLE, desc = "the new table, complete")
@Outcome(id = "1, .*", expect = Expect.FORBIDDEN, desc = "the new table seen partly built: publication broken")
@Outcome(expect = Expect.FORBIDDEN, desc = "anything else")
@State
public class ForwardingTableHolderTest {
    static final NodeAddr SELF = NodeAddr.of(0x0100_0000_0000_0000L, 1);
    static final NodeAddr PEER = NodeAddr.of(0x0200_0000_0000_0000L, 2);

    final ForwardingTableHolder holder = new ForwardingTableHolder();

    @Actor
    public void control() {
        holder.set(ForwardingTable.builder(SELF, Coords.of(SELF))
                .peer(new ForwardingTable.Peer(PEER, 42, Coords.of(PEER, SELF), 1.0, 1280, true,
                        ForwardingTable.TreeRole.CHILD))
                .build());
    }

    @Actor
    public void worker(final IIII_Result r) {
        final ForwardingTable t = holder.get();
        if (t == null) {
            r.r1 = -1;
            return;
        }
        r.r1 = t.peerCount();
        r.r2 = t.linkMtu(0);
        r.r3 = (int) t.linkId(0);
        r.r4 = t.peerIndex(PEER);
    }
}
