package net.fips.cli;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.function.Consumer;

/**
 * Process signal handlers (SIGTERM, SIGINT, SIGHUP) through {@code sun.misc.Signal} of module {@code jdk.unsupported},
 * the only way the JDK offers. It is reached reflectively: a direct reference draws javac's internal-API warning,
 * which no lint option turns off, and the build compiles with {@code -Werror}.
 */
final class Signals {

    private Signals() {
    }

    /**
     * Installs {@code handler} for a signal; it runs on the JVM's signal-dispatch thread with the name given here.
     *
     * @param name    the signal's name without {@code SIG} ({@code TERM}, {@code INT}, {@code HUP})
     * @param handler called with {@code name} each time the signal arrives
     * @return true when the process had inherited the signal as ignored, so the handler will never run
     * @throws IllegalStateException when the JVM refuses the handler (an unknown signal, one the JVM uses itself)
     */
    static boolean handle(final String name, final Consumer<String> handler) {
        try {
            final Class<?> signal = Class.forName("sun.misc.Signal");
            final Class<?> handlerType = Class.forName("sun.misc.SignalHandler");
            final Object sig = signal.getConstructor(String.class).newInstance(name);
            final Object proxy = Proxy.newProxyInstance(handlerType.getClassLoader(), new Class<?>[] {handlerType},
                    (self, method, args) -> invoke(self, method, args, name, handler));
            final Method install = signal.getMethod("handle", signal, handlerType);
            final Object previous = install.invoke(null, sig, proxy);
            return previous == handlerType.getField("SIG_IGN").get(null);
        } catch (final InvocationTargetException e) {
            throw new IllegalStateException("cannot handle SIG" + name + ": " + e.getCause(), e.getCause());
        } catch (final ReflectiveOperationException e) {
            throw new IllegalStateException("cannot handle SIG" + name + ": " + e, e);
        }
    }

    private static Object invoke(final Object self, final Method method, final Object[] args, final String name,
            final Consumer<String> handler) {
        return switch (method.getName()) {
            case "handle" -> {
                handler.accept(name);
                yield null;
            }
            case "equals" -> self == args[0];
            case "hashCode" -> System.identityHashCode(self);
            case "toString" -> "handler of SIG" + name;
            default -> throw new UnsupportedOperationException(method.getName());
        };
    }
}
