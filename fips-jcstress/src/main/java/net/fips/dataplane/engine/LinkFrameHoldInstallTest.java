package net.fips.dataplane.engine;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * A frame for an expected index arrives while the control thread installs that index. The receive side does what
 * {@code InboundDispatch} does (look the index up, then {@link LinkFrameHold#onMiss} on a miss); the control thread
 * runs {@link LinkFrameHold#install}. Either the frame finds the index (dispatched directly) or it is held and the
 * install takes it: a frame held after the take would wait until it expired. r1: 1 dispatched, 2 held; r2: frames
 * the install took.
 */
@JCStressTest
@Description("LinkFrameHold: a frame racing the install is dispatched or taken by it, never stranded")
@Outcome(id = "1, 0", expect = Expect.ACCEPTABLE, desc = "the frame found the new index")
@Outcome(id = "2, 1", expect = Expect.ACCEPTABLE, desc = "held first, then taken by the install")
@Outcome(id = "2, 0", expect = Expect.FORBIDDEN, desc = "held after the install took the frames: stranded")
@Outcome(expect = Expect.FORBIDDEN, desc = "anything else")
@State
public class LinkFrameHoldInstallTest {
    static final int IDX = 0x4242;
    static final long KEY = IndexTable.key(1, IDX);
    static final long LINK = 5;
    static final int SLOT = 7;

    final IndexTableHolder table = new IndexTableHolder();
    final LinkFrameHold hold = new LinkFrameHold(null, 64, () -> 0L);
    int outcome;
    int taken;

    public LinkFrameHoldInstallTest() {
        hold.expect(IDX);
    }

    @Actor
    public void receive() {
        long linkId = table.lvTable().get(KEY);
        if (linkId == IndexTable.MISSING) {
            linkId = hold.onMiss(table, KEY, IDX, SLOT);
        }
        outcome = linkId == LINK ? 1 : linkId == LinkFrameHold.HELD ? 2 : 0;
    }

    @Actor
    public void control() {
        hold.install(table, KEY, IDX, LINK, held -> taken = held.length == 1 && held[0] == SLOT ? 1 : held.length * 10);
    }

    @Arbiter
    public void arbiter(final II_Result r) {
        r.r1 = outcome;
        r.r2 = taken;
    }
}
