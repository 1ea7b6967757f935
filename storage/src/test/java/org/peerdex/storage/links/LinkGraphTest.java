package org.peerdex.storage.links;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.storage.kv.MemoryStore;

class LinkGraphTest {
    @Test
    void recordsAnchorsForTargetsAndCountsHostLinksOnce() {
        LinkGraph g = new LinkGraph(new MemoryStore());
        UrlHash a1 = UrlHash.of("http://a.org/1");
        UrlHash a2 = UrlHash.of("http://a.org/2");
        UrlHash b1 = UrlHash.of("http://b.org/1");
        g.record(a1, List.of(new LinkGraph.OutLink(a2, "second page"), new LinkGraph.OutLink(b1, "other host"),
                new LinkGraph.OutLink(a1, "self")));
        g.record(a1, List.of(new LinkGraph.OutLink(b1, "other host"))); // a re-crawl adds nothing
        g.record(a2, List.of(new LinkGraph.OutLink(b1, "b again")));
        assertEquals(List.of("second page"), g.inboundAnchors(a2, 10));
        assertEquals(2, g.inboundAnchors(b1, 10).size());
        assertEquals(2, g.outlinks(a1).size());
        List<LinkGraph.HostLink> hosts = new ArrayList<>();
        g.scanHostLinks(hosts::add);
        long aToB = hosts.stream().filter(h -> h.sourceHost().equals(a1.hostHash())
                && h.targetHost().equals(b1.hostHash())).mapToLong(LinkGraph.HostLink::count).sum();
        long aToA = hosts.stream().filter(h -> h.sourceHost().equals(a1.hostHash())
                && h.targetHost().equals(a1.hostHash())).mapToLong(LinkGraph.HostLink::count).sum();
        assertEquals(2, aToB);
        assertEquals(1, aToA);
    }
}
