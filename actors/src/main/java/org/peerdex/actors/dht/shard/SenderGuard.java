package org.peerdex.actors.dht.shard;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Who a ShardOwner no longer listens to: senders blocked by hand (by peer id or Artery address), and senders
 * blocked automatically after too many malformed or oversized messages. Also a token bucket per sender address
 * for lookups (counts, filters, postings, metadata, digests), which carry no sender id. Thread-safe.
 */
public final class SenderGuard {
    private final Set<String> blocked = ConcurrentHashMap.newKeySet();
    private final Map<String, Integer> strikes = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Integer> eldest) {
            return size() > 10_000;
        }
    };
    private final int strikesToBlock;
    private final SenderRateLimiter lookups;

    /**
     * @param strikesToBlock malformed/oversized messages after which a sender is blocked (0: never automatically)
     */
    public SenderGuard(int strikesToBlock, double lookupsPerSecond, int lookupBurst) {
        this.strikesToBlock = strikesToBlock;
        this.lookups = new SenderRateLimiter(lookupsPerSecond, lookupBurst);
    }

    public boolean isBlocked(String sender) {
        return sender != null && blocked.contains(sender);
    }

    public void block(String sender) {
        blocked.add(sender);
    }

    public void unblock(String sender) {
        blocked.remove(sender);
        synchronized (strikes) {
            strikes.remove(sender);
        }
    }

    public Set<String> blocked() {
        return Set.copyOf(blocked);
    }

    /** Records a malformed message; true if the sender is now blocked. */
    public boolean strike(String sender) {
        if (sender == null || strikesToBlock <= 0) return false;
        int n;
        synchronized (strikes) {
            n = strikes.merge(sender, 1, Integer::sum);
        }
        if (n >= strikesToBlock) {
            blocked.add(sender);
            return true;
        }
        return false;
    }

    /** 0 if this lookup may run now, else milliseconds until the sender may ask again. */
    public synchronized long acquireLookup(String address, long nowMillis) {
        return lookups.acquire(address, nowMillis);
    }
}
