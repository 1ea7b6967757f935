package org.peerdex.actors.dht.search;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.peerdex.actors.dht.RangeKey;
import org.peerdex.actors.dht.search.RemoteSearch.RemoteCandidate;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.protocol.ring.Partitions;
import org.peerdex.storage.rwi.Posting;

/** The partition-wise join of a multi-word remote search, against a join computed document by document. */
class PartitionJoinTest {
    private static final Partitions PARTITIONS = new Partitions(4);
    private static final WordHash X = WordHash.of("replication");
    private static final WordHash Y = WordHash.of("partition");
    private static final WordHash Z = WordHash.of("quorum");

    private static Posting posting(WordHash w, UrlHash u) {
        return new Posting(w, u, null, 0, 1, new int[] {3}, 120, 4, 0, "en", 'h', 2, 1, 30, 4, 0);
    }

    private static UrlHash url(int i) {
        return UrlHash.of("https://docs.example.org/guide/section-" + i + ".html");
    }

    /** Documents 0..n-1: X in every 2nd, Y in every 3rd, Z in every 5th. */
    private static Map<RangeKey, List<Posting>> postings(int n) {
        Map<RangeKey, List<Posting>> m = new HashMap<>();
        for (int i = 0; i < n; i++) {
            UrlHash u = url(i);
            int p = PARTITIONS.partitionOf(u);
            if (i % 2 == 0) m.computeIfAbsent(new RangeKey(X, p), k -> new ArrayList<>()).add(posting(X, u));
            if (i % 3 == 0) m.computeIfAbsent(new RangeKey(Y, p), k -> new ArrayList<>()).add(posting(Y, u));
            if (i % 5 == 0) m.computeIfAbsent(new RangeKey(Z, p), k -> new ArrayList<>()).add(posting(Z, u));
        }
        return m;
    }

    private static Map<RangeKey, Integer> counts(Map<RangeKey, List<Posting>> postings) {
        Map<RangeKey, Integer> counts = new HashMap<>();
        postings.forEach((k, v) -> counts.put(k, v.size()));
        return counts;
    }

    @Test
    void theRarestWordOfAPartitionIsTheOneWithFewestPostingsAndPartitionsWithoutSomeWordDrop() {
        Map<RangeKey, Integer> counts = new HashMap<>();
        counts.put(new RangeKey(X, 0), 5);
        counts.put(new RangeKey(Y, 0), 2);
        counts.put(new RangeKey(X, 1), 3);
        counts.put(new RangeKey(Y, 1), 0);
        counts.put(new RangeKey(X, 2), 1);
        counts.put(new RangeKey(X, 3), 2);
        counts.put(new RangeKey(Y, 3), 2);
        Map<Integer, WordHash> rarest = PartitionJoin.rarestPerPartition(List.of(X, Y), 16, counts);
        assertEquals(Map.of(0, Y, 3, X), rarest, "partition 1 has no Y, partition 2 no count for Y; ties: the earlier word");
    }

    @Test
    void theJoinFindsExactlyTheDocumentsWithEveryWordAndDropsBloomFalsePositives() {
        int n = 600;
        Map<RangeKey, List<Posting>> all = postings(n);
        List<WordHash> words = List.of(X, Y, Z);
        Map<Integer, WordHash> rarest = PartitionJoin.rarestPerPartition(words, PARTITIONS.count(), counts(all));
        assertEquals(PARTITIONS.count(), rarest.size(), "600 documents reach every partition");
        assertTrue(rarest.values().stream().allMatch(Z::equals), "Z (every 5th) is rarest everywhere: " + rarest);

        // the filtered lookups returned the other words' postings; a Bloom filter lets through more than matches,
        // here all of them (the worst case): the candidates are the documents with X and Y
        Map<RangeKey, List<UrlHash>> asked = PartitionJoin.candidateUrls(words, rarest, all, 10_000);
        Set<UrlHash> expectedAsked = new TreeSet<>(Comparator.comparing(UrlHash::value));
        for (int i = 0; i < n; i += 6) expectedAsked.add(url(i));
        Set<UrlHash> gotAsked = new TreeSet<>(Comparator.comparing(UrlHash::value));
        asked.values().forEach(gotAsked::addAll);
        assertEquals(expectedAsked, gotAsked);
        asked.forEach((k, urls) -> {
            assertEquals(Z, k.word(), "asked of the rarest word's holder");
            for (UrlHash u : urls) assertEquals(k.partition(), PARTITIONS.partitionOf(u), "a URL lives in one partition");
        });

        // the rarest holder answers with the postings it has for the URLs asked: documents with X, Y and Z
        Map<UrlHash, PeerId> answeredBy = new HashMap<>();
        PeerId holder = PeerId.parse("AAAAAAAAAAAA");
        for (List<Posting> ps : all.values()) for (Posting p : ps) answeredBy.put(p.url(), holder);
        List<RemoteCandidate> matches = PartitionJoin.join(words, rarest, asked, all, answeredBy);
        Set<String> expected = new TreeSet<>();
        for (int i = 0; i < n; i += 30) expected.add(url(i).value());
        assertEquals(expected, matches.stream().map(c -> c.url().value()).collect(Collectors.toCollection(TreeSet::new)));
        for (RemoteCandidate c : matches) {
            assertEquals(List.of(X, Y, Z), c.postings().stream().map(Posting::word).toList(), "in the query's order");
            assertEquals(holder, c.from());
        }
    }

    @Test
    void theUrlsAskedOfOneHolderAreBoundedByAMessage() {
        Map<RangeKey, List<Posting>> all = postings(2_000);
        List<WordHash> words = List.of(X, Y);
        Map<Integer, WordHash> rarest = PartitionJoin.rarestPerPartition(words, PARTITIONS.count(), counts(all));
        Map<RangeKey, List<UrlHash>> asked = PartitionJoin.candidateUrls(words, rarest, all, 7);
        assertEquals(PARTITIONS.count(), asked.size());
        for (List<UrlHash> urls : asked.values()) assertEquals(7, urls.size());
    }
}
