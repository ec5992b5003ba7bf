package net.fips.control.nostr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.OptionalLong;

import org.junit.jupiter.api.Test;

/** §1.12's failure state, the cases of the reference's failure_state.rs tests (§7.2). */
class FailureStateTest {
    private static final long T = 1_700_000_000_000L;

    private static FailureState state() {
        return new FailureState(3, 600, 60, 2);
    }

    @Test
    void firstFailureWarnsWithoutCooldownAndWarningsAreRateLimited() {
        final FailureState s = state();
        final FailureState.Decision first = s.recordFailure("a", T);
        assertEquals(new FailureState.Decision(1, true, null, false), first);
        assertFalse(s.recordFailure("a", T + 59_999).shouldWarn());
        assertTrue(s.recordFailure("a", T + 60_000).shouldWarn());
    }

    @Test
    void thresholdSetsCooldownAndCrossesOnceSuccessResets() {
        final FailureState s = state();
        s.recordFailure("a", T);
        s.recordFailure("a", T + 1);
        final FailureState.Decision third = s.recordFailure("a", T + 2);
        assertTrue(third.crossedThreshold());
        assertEquals(T + 2 + 600_000, third.cooldownUntilMs());
        final FailureState.Decision fourth = s.recordFailure("a", T + 3);
        assertFalse(fourth.crossedThreshold());
        assertEquals(T + 3 + 600_000, fourth.cooldownUntilMs());
        assertEquals(OptionalLong.of(T + 3 + 600_000), s.cooldownUntil("a", T + 10));
        assertEquals(OptionalLong.empty(), s.cooldownUntil("a", T + 3 + 600_000));
        s.noteObservedSkew("a", 250, T + 4);
        s.recordSuccess("a", T + 5);
        assertEquals(OptionalLong.empty(), s.cooldownUntil("a", T + 6));
        assertEquals(List.of(new FailureState.View("a", 0, null, 250L)), s.snapshot());
        assertEquals(1, s.recordFailure("a", T + 7).consecutiveFailures());
    }

    @Test
    void skewCreatesAnEntry() {
        final FailureState s = state();
        s.noteObservedSkew("b", -40, T);
        assertEquals(List.of(new FailureState.View("b", 0, null, -40L)), s.snapshot());
    }

    @Test
    void protocolMismatchFreshRepeatAndAfterLapse() {
        final FailureState s = state();
        assertTrue(s.recordProtocolMismatch("a", T, 86_400_000));
        assertEquals(3, s.snapshot().get(0).consecutiveFailures());
        // Repeated while more than half the window is left: not news.
        assertFalse(s.recordProtocolMismatch("a", T + 1000, 86_400_000));
        // Less than half left (the cooldown was pinned forward by the repeat): news again.
        assertTrue(s.recordProtocolMismatch("a", T + 1000 + 43_200_001, 86_400_000));
        // After the cooldown lapsed: news.
        assertTrue(s.recordProtocolMismatch("a", T + 1000 + 43_200_001 + 86_400_000, 86_400_000));
        assertNull(s.snapshot().get(0).lastObservedSkewMs());
    }

    @Test
    void capEvictsTheOldestLastFailure() {
        final FailureState s = state();
        s.recordFailure("a", T);
        s.recordFailure("b", T + 1);
        s.recordFailure("a", T + 2);
        s.recordFailure("c", T + 3);
        assertEquals(List.of("a", "c"), s.snapshot().stream().map(FailureState.View::npub).toList());
    }
}
