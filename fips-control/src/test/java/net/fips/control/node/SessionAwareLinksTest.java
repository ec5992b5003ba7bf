package net.fips.control.node;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import net.fips.control.link.LinkListener;

/**
 * {@link SessionAwareLinks} stands between the link layer and the routing layers, and every {@link LinkListener}
 * method has an empty default: one it does not override is silently swallowed (the fast-failover callback once
 * was, and the node routed into a crashed transit until the dead timer). Every method must be passed on.
 */
class SessionAwareLinksTest {
    @Test
    void everyLinkListenerMethodIsPassedOn() {
        final List<String> missing = new ArrayList<>();
        for (final Method m : LinkListener.class.getDeclaredMethods()) {
            if (m.isSynthetic() || Modifier.isStatic(m.getModifiers())) {
                continue;
            }
            try {
                SessionAwareLinks.class.getDeclaredMethod(m.getName(), m.getParameterTypes());
            } catch (final NoSuchMethodException e) {
                missing.add(m.getName());
            }
        }
        assertEquals(List.of(), missing, "LinkListener methods SessionAwareLinks does not pass on");
    }
}
