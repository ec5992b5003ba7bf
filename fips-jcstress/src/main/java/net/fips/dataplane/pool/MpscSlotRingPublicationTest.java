package net.fips.dataplane.pool;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIJ_Result;

/**
 * Ownership hand-off through an {@link MpscSlotRing}: the producer fills a slot of a real {@link PacketPool} with
 * plain stores (header length, payload) and offers its index; a consumer that polls the index must see those
 * bytes. This is the producer's release store of the cell pairing with the consumer's acquire load of it.
 */
@JCStressTest
@Description("MpscSlotRing: the consumer that receives a slot index sees the bytes written into the slot before offer")
@Outcome(id = "-1, 0, 0", expect = Expect.ACCEPTABLE, desc = "ring still empty when the consumer looked")
@Outcome(id = "0, 8, 4919", expect = Expect.ACCEPTABLE, desc = "index received with the slot's header and payload")
@Outcome(id = "0, .*", expect = Expect.FORBIDDEN,
        desc = "index received but the slot's bytes are stale: publication broken")
@Outcome(expect = Expect.FORBIDDEN, desc = "anything else (a phantom index, or the arbiter found the slot lost)")
@State
public class MpscSlotRingPublicationTest {
    static final long PAYLOAD = 0x1337;

    final MpscSlotRing ring = new MpscSlotRing(2);
    final PacketPool pool = SlotPools.take(1);
    final int slot;

    public MpscSlotRingPublicationTest() {
        slot = pool.acquire();
        SlotPools.putPayload(pool, slot, 0);
    }

    @Actor
    public void producer() {
        SlotPools.putLength(pool, slot, 8);
        SlotPools.putPayload(pool, slot, PAYLOAD);
        ring.offer(slot);
    }

    @Actor
    public void consumer(final IIJ_Result r) {
        final int s = ring.poll();
        r.r1 = s;
        if (s != MpscSlotRing.EMPTY) {
            r.r2 = SlotPools.length(pool, s);
            r.r3 = SlotPools.payload(pool, s);
        }
    }

    @Arbiter
    public void arbiter(final IIJ_Result r) {
        // whoever owns the slot now (the consumer, or still the ring) gives it back
        final int s = r.r1 != MpscSlotRing.EMPTY ? r.r1 : ring.poll();
        if (s != slot || ring.poll() != MpscSlotRing.EMPTY || !pool.release(s)
                || !SlotPools.checkAllFreeAndGiveBack(pool)) {
            r.r1 = -2;
        }
    }
}
