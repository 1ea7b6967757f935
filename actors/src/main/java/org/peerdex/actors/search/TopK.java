package org.peerdex.actors.search;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/** Keeps the k best items seen so far in a bounded min-heap: O(n log k) over n items, k in memory. */
public final class TopK<T> {
    private final int k;
    private final Comparator<T> better;
    private final PriorityQueue<T> heap;

    /** {@code order} sorts best first. */
    public TopK(int k, Comparator<T> order) {
        if (k < 1) throw new IllegalArgumentException("k must be positive");
        this.k = k;
        this.better = order;
        this.heap = new PriorityQueue<>(Math.min(k, 1024) + 1, order.reversed());
    }

    /** Offers an item; returns true if it is (for now) among the best k. */
    public boolean offer(T item) {
        if (heap.size() < k) {
            heap.add(item);
            return true;
        }
        if (better.compare(item, heap.peek()) < 0) {
            heap.poll();
            heap.add(item);
            return true;
        }
        return false;
    }

    public int size() {
        return heap.size();
    }

    /** True once k items are kept: from then on an item must beat {@link #worst()} to enter. */
    public boolean full() {
        return heap.size() >= k;
    }

    /** The worst kept item, or null if none is kept. */
    public T worst() {
        return heap.peek();
    }

    /** The kept items, best first. */
    public List<T> sorted() {
        List<T> out = new ArrayList<>(heap);
        out.sort(better);
        return out;
    }
}
