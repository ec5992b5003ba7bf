package net.fips.control.nostr;

import java.lang.System.Logger.Level;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The relay pool of discovery-gateway.md §1.6: one {@link RelayClient} per distinct URL of {@code advert_relays ∪
 * dm_relays}, live subscriptions and fetches over a subset, sends fanned out to a subset. As the reference's pool
 * does, an event id is notified once however many relays deliver it (a bounded set of recent ids) and our own
 * published events are recorded first, so their echo is not notified. A send skips the relays that are not in the
 * pool or not connected (the reference fails the whole send for a relay outside the pool, §1.6 [REF-BUG]) and
 * reports which relays accepted. Thread-safe.
 */
public final class RelayPool implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(RelayPool.class.getName());
    /** Event ids remembered for cross-relay de-duplication. */
    static final int SEEN_IDS = 8192;

    private final Map<String, RelayClient> clients = new LinkedHashMap<>();
    private final Set<String> seen = Collections.newSetFromMap(new LinkedHashMap<>(256, 0.75f, false) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(final Map.Entry<String, Boolean> eldest) {
            return size() > SEEN_IDS;
        }
    });
    private long duplicates;

    /** One relay as the operator surface shows it. */
    public record RelayView(String url, boolean connected, RelayClient.Stats stats) {
    }

    /**
     * @param urls           relay URLs (duplicates folded; each must be a {@code ws://} or {@code wss://} URL)
     * @param http           the WebSocket client
     * @param scheduler      timers
     * @param wallClockMs    the wall clock, Unix ms
     * @param backoff        reconnect delays
     * @param connectTimeout one connection attempt's limit
     */
    public RelayPool(final Collection<String> urls, final HttpClient http, final RelayScheduler scheduler,
            final LongSupplier wallClockMs, final Backoff backoff, final Duration connectTimeout) {
        for (final String u : new LinkedHashSet<>(urls)) {
            clients.put(u, new RelayClient(URI.create(u), http, scheduler, wallClockMs, backoff, connectTimeout));
        }
    }

    /** Starts every connection (asynchronously). */
    public void start() {
        clients.values().forEach(RelayClient::start);
    }

    /** @return whether {@code url} is one of the pool's relays */
    public boolean contains(final String url) {
        return clients.containsKey(url);
    }

    /**
     * A live subscription on the pool's members among {@code urls}; each event id reaches {@code onEvent} once.
     *
     * @param urls    which relays
     * @param filters the REQ filters
     * @param onEvent receives verified, unexpired, not yet seen events (on a client thread; must not block)
     */
    public void subscribe(final Collection<String> urls, final List<Filter> filters,
            final Consumer<NostrEvent> onEvent) {
        for (final RelayClient c : members(urls)) {
            c.subscribe(filters, e -> {
                if (firstSighting(e.id())) {
                    onEvent.accept(e);
                }
            });
        }
    }

    /**
     * A fetch on the pool's members among {@code urls}: the events of all of them, each id once.
     *
     * @param urls      which relays
     * @param filters   the REQ filters
     * @param timeoutMs each relay's EOSE wait
     * @return the events
     */
    public CompletableFuture<List<NostrEvent>> fetch(final Collection<String> urls, final List<Filter> filters,
            final long timeoutMs) {
        final List<CompletableFuture<List<NostrEvent>>> each = new ArrayList<>();
        for (final RelayClient c : members(urls)) {
            each.add(c.fetch(filters, timeoutMs));
        }
        return CompletableFuture.allOf(each.toArray(CompletableFuture[]::new)).thenApply(v -> {
            final Map<String, NostrEvent> byId = new LinkedHashMap<>();
            for (final CompletableFuture<List<NostrEvent>> f : each) {
                for (final NostrEvent e : f.join()) {
                    byId.putIfAbsent(e.id(), e);
                }
            }
            return List.copyOf(byId.values());
        });
    }

    /**
     * Sends an event to the connected pool members among {@code urls}; the others are skipped (logged at DEBUG).
     *
     * @param urls      which relays
     * @param event     a signed event
     * @param timeoutMs each relay's OK wait
     * @return the URLs whose relay answered OK true (empty when none did)
     */
    public CompletableFuture<List<String>> publish(final Collection<String> urls, final NostrEvent event,
            final long timeoutMs) {
        synchronized (seen) {
            seen.add(event.id());
        }
        final Map<String, CompletableFuture<RelayClient.PublishResult>> each = new LinkedHashMap<>();
        for (final String u : new LinkedHashSet<>(urls)) {
            final RelayClient c = clients.get(u);
            if (c == null) {
                LOG.log(Level.DEBUG, "nostr: {0} is not one of the configured relays; not sent there", u);
            } else if (!c.isConnected()) {
                LOG.log(Level.DEBUG, "nostr: {0} is not connected; kind {1} not sent there", u, event.kind());
            } else {
                each.put(u, c.publish(event, timeoutMs));
            }
        }
        return CompletableFuture.allOf(each.values().toArray(CompletableFuture[]::new)).thenApply(v -> {
            final List<String> ok = new ArrayList<>();
            each.forEach((u, f) -> {
                final RelayClient.PublishResult r = f.join();
                if (r.accepted()) {
                    ok.add(u);
                } else {
                    LOG.log(Level.DEBUG, "nostr: {0} refused kind {1}: {2}", u, event.kind(), r.message());
                }
            });
            return List.copyOf(ok);
        });
    }

    /** @return every relay with its state and counters, in configuration order */
    public List<RelayView> views() {
        final List<RelayView> out = new ArrayList<>(clients.size());
        clients.forEach((u, c) -> out.add(new RelayView(u, c.isConnected(), c.stats())));
        return out;
    }

    /** @return events delivered by more than one relay (notified once) */
    public long duplicates() {
        synchronized (seen) {
            return duplicates;
        }
    }

    /** @return the number of relays connected now */
    public int connectedCount() {
        int n = 0;
        for (final RelayClient c : clients.values()) {
            n += c.isConnected() ? 1 : 0;
        }
        return n;
    }

    /** @return whether some pool member among {@code urls} is connected now */
    public boolean anyConnected(final Collection<String> urls) {
        for (final RelayClient c : members(urls)) {
            if (c.isConnected()) {
                return true;
            }
        }
        return false;
    }

    private boolean firstSighting(final String id) {
        synchronized (seen) {
            if (seen.add(id)) {
                return true;
            }
            duplicates++;
            return false;
        }
    }

    private List<RelayClient> members(final Collection<String> urls) {
        final List<RelayClient> out = new ArrayList<>();
        for (final String u : new LinkedHashSet<>(urls)) {
            final RelayClient c = clients.get(u);
            if (c != null) {
                out.add(c);
            }
        }
        return out;
    }

    /** Closes every connection; pending fetches end with what they have. */
    @Override
    public void close() {
        clients.values().forEach(RelayClient::close);
    }
}
