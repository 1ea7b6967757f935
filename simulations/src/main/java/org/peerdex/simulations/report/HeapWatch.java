package org.peerdex.simulations.report;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * The most heap a run had in use at once: the heap pools' usage summed just before each collection (when the heap is
 * fullest), and at each {@link #peak()} call. The pools' own peaks (what the summary summed before) are reached at
 * different moments: their sum exceeded -Xmx (21.5 GiB under -Xmx16g) and was no moment's usage.
 */
public final class HeapWatch implements AutoCloseable, NotificationListener {
    private final AtomicLong peak = new AtomicLong();
    private final Set<String> heapPools = new HashSet<>();
    private final List<NotificationEmitter> emitters = new ArrayList<>();

    public HeapWatch() {
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
            if (p.getType() == MemoryType.HEAP) heapPools.add(p.getName());
        }
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc instanceof NotificationEmitter e) {
                e.addNotificationListener(this, null, null);
                emitters.add(e);
            }
        }
        peak();
    }

    @Override
    public void handleNotification(Notification n, Object handback) {
        if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) return;
        GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
        long used = 0;
        for (Map.Entry<String, MemoryUsage> e : info.getGcInfo().getMemoryUsageBeforeGc().entrySet()) {
            if (heapPools.contains(e.getKey())) used += e.getValue().getUsed();
        }
        peak.accumulateAndGet(used, Math::max);
    }

    /** The peak so far, the heap in use now included. */
    public long peak() {
        long now = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        return peak.accumulateAndGet(now, Math::max);
    }

    @Override
    public void close() {
        for (NotificationEmitter e : emitters) {
            try {
                e.removeNotificationListener(this);
            } catch (ListenerNotFoundException ignored) {
                // already gone
            }
        }
        emitters.clear();
    }
}
