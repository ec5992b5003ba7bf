package net.fips.dataplane.wire;

/**
 * Outcome of a decode: either {@link Ok} with the value or {@link Err} with a {@link WireError}. Decoders never throw
 * for malformed input; they return an {@code Err}. Error results are shared singletons, so rejecting a packet does
 * not allocate.
 *
 * @param <T> the decoded type
 */
public sealed interface WireResult<T> permits WireResult.Ok, WireResult.Err {

    /** A successful decode. @param value the decoded value, never null */
    record Ok<T>(T value) implements WireResult<T> {
    }

    /** A refused decode. @param error the reason */
    record Err<T>(WireError error) implements WireResult<T> {
    }

    /** Wraps a value. */
    static <T> WireResult<T> ok(final T value) {
        return new Ok<>(value);
    }

    /** The shared error result for {@code error}. */
    @SuppressWarnings("unchecked")
    static <T> WireResult<T> err(final WireError error) {
        return (WireResult<T>) SharedErrors.ERRORS[error.ordinal()];
    }

    /** True for {@link Ok}. */
    default boolean isOk() {
        return this instanceof Ok;
    }

    /** The value, or null for an error. */
    default T valueOrNull() {
        return this instanceof Ok<T> ok ? ok.value() : null;
    }

    /** The error, or null for a value. */
    default WireError errorOrNull() {
        return this instanceof Err<T> err ? err.error() : null;
    }

    /** The value, or the error as a checked {@link WireException}. */
    default T orElseThrow() throws WireException {
        if (this instanceof Ok<T> ok) {
            return ok.value();
        }
        throw WireException.of(((Err<T>) this).error());
    }
}

/** Holder of the shared error results (an interface cannot keep private state). */
final class SharedErrors {
    static final WireResult.Err<?>[] ERRORS = new WireResult.Err<?>[WireError.values().length];

    static {
        for (final WireError e : WireError.values()) {
            ERRORS[e.ordinal()] = new WireResult.Err<>(e);
        }
    }

    private SharedErrors() {
    }
}
