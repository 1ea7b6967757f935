package org.peerdex.storage.links;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.storage.kv.KeyValueStore;
import org.peerdex.storage.kv.Keys;
import org.peerdex.storage.kv.Keyspace;

/**
 * The crawl's link graph in keyspace {@code 'l'}, hashes as ASCII:
 * <ul>
 *   <li>{@code 'l' 'o' ‖ source URL hash (12) ‖ target URL hash (12)} → anchor text (UTF-8): out-links</li>
 *   <li>{@code 'l' 'i' ‖ target URL hash (12) ‖ source URL hash (12)} → anchor text: in-links, whose anchors are
 *       indexed for the target (as YaCy does)</li>
 *   <li>{@code 'l' 'h' ‖ source host hash (6) ‖ target host hash (6)} → 8-byte big-endian count of distinct URL
 *       links between the hosts: the host graph for per-host PageRank</li>
 * </ul>
 * Recording a page's links again adds only the links not recorded before. Thread-safe.
 */
public final class LinkGraph {
    private static final byte OUT = 'o';
    private static final byte IN = 'i';
    private static final byte HOST = 'h';
    private static final int MAX_ANCHOR_BYTES = 400;
    private final KeyValueStore store;

    /** A link from a page: target and anchor text. */
    public record OutLink(UrlHash target, String anchor) {}

    /** A host-graph edge: links from pages of one host to pages of another (or the same) host. */
    public record HostLink(String sourceHost, String targetHost, long count) {}

    public LinkGraph(KeyValueStore store) {
        this.store = store;
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] anchorBytes(String anchor) {
        byte[] b = (anchor == null ? "" : anchor).getBytes(StandardCharsets.UTF_8);
        if (b.length <= MAX_ANCHOR_BYTES) return b;
        // cut on a character boundary
        String s = new String(b, 0, MAX_ANCHOR_BYTES, StandardCharsets.UTF_8);
        if (s.endsWith("\uFFFD")) s = s.substring(0, s.length() - 1);
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Records a page's out-links (self-links ignored) with their in-link mirrors and host counts. */
    public synchronized void record(UrlHash source, List<OutLink> links) {
        byte[] outPrefix = Keys.of(Keyspace.LINKS, new byte[] {OUT}, ascii(source.value()));
        Set<String> existing = new HashSet<>();
        try (KeyValueStore.Cursor c = store.scanPrefix(outPrefix)) {
            while (c.next()) existing.add(new String(c.key(), outPrefix.length, UrlHash.LENGTH, StandardCharsets.US_ASCII));
        }
        KeyValueStore.Batch batch = store.newBatch();
        Map<String, Long> hostAdds = new HashMap<>();
        for (OutLink l : links) {
            if (l.target().equals(source) || !existing.add(l.target().value())) continue;
            byte[] anchor = anchorBytes(l.anchor());
            batch.put(Keys.concat(outPrefix, ascii(l.target().value())), anchor);
            batch.put(Keys.of(Keyspace.LINKS, new byte[] {IN}, ascii(l.target().value()), ascii(source.value())), anchor);
            hostAdds.merge(l.target().hostHash(), 1L, Long::sum);
        }
        for (Map.Entry<String, Long> e : hostAdds.entrySet()) {
            byte[] hk = hostKey(source.hostHash(), e.getKey());
            long old = store.get(hk).map(v -> ByteBuffer.wrap(v).getLong()).orElse(0L);
            batch.put(hk, ByteBuffer.allocate(8).putLong(old + e.getValue()).array());
        }
        if (batch.size() > 0) store.write(batch, false);
    }

    private static byte[] hostKey(String from, String to) {
        return Keys.of(Keyspace.LINKS, new byte[] {HOST}, ascii(from), ascii(to));
    }

    /** Anchor texts of links pointing to {@code target} (non-empty, at most {@code limit}). */
    public List<String> inboundAnchors(UrlHash target, int limit) {
        List<String> out = new ArrayList<>();
        try (KeyValueStore.Cursor c = store.scanPrefix(Keys.of(Keyspace.LINKS, new byte[] {IN}, ascii(target.value())))) {
            while (out.size() < limit && c.next()) {
                if (c.value().length > 0) out.add(new String(c.value(), StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    /** The URL hashes {@code source} links to. */
    public List<UrlHash> outlinks(UrlHash source) {
        byte[] p = Keys.of(Keyspace.LINKS, new byte[] {OUT}, ascii(source.value()));
        List<UrlHash> out = new ArrayList<>();
        try (KeyValueStore.Cursor c = store.scanPrefix(p)) {
            while (c.next()) out.add(new UrlHash(new String(c.key(), p.length, UrlHash.LENGTH, StandardCharsets.US_ASCII)));
        }
        return out;
    }

    /** Every host-graph edge, sorted by source host. */
    public void scanHostLinks(Consumer<HostLink> sink) {
        byte[] p = Keys.of(Keyspace.LINKS, new byte[] {HOST});
        try (KeyValueStore.Cursor c = store.scanPrefix(p)) {
            while (c.next()) {
                byte[] k = c.key();
                sink.accept(new HostLink(new String(k, 2, 6, StandardCharsets.US_ASCII),
                        new String(k, 8, 6, StandardCharsets.US_ASCII), ByteBuffer.wrap(c.value()).getLong()));
            }
        }
    }
}
