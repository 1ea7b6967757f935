package org.peerdex.actors.search;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.storage.rwi.Posting;

class IntersectionTest {
    static Posting posting(String word, UrlHash url, int... positions) {
        return new Posting(WordHash.of(word), url, null, 0, Math.max(1, positions.length), positions, 100, 5, 0,
                "en", 'h', 0, 0, 30, 2, 0);
    }

    static List<Posting> list(String word, List<UrlHash> urls) {
        return Intersection.sorted(urls.stream().map(u -> posting(word, u)).toList());
    }

    @Test
    void mergeJoinMatchesASetIntersectionOnRandomLists() {
        Random rnd = new Random(7);
        List<UrlHash> universe = new ArrayList<>();
        for (int i = 0; i < 3000; i++) universe.add(UrlHash.of("http://h" + (i % 40) + ".test/p" + i));
        for (int round = 0; round < 20; round++) {
            List<Set<UrlHash>> sets = new ArrayList<>();
            List<List<Posting>> lists = new ArrayList<>();
            for (int t = 0; t < 3; t++) {
                double density = 0.05 + rnd.nextDouble() * 0.6;
                Set<UrlHash> s = universe.stream().filter(u -> rnd.nextDouble() < density)
                        .collect(Collectors.toCollection(TreeSet::new));
                sets.add(s);
                lists.add(list("w" + t, new ArrayList<>(s)));
            }
            Set<UrlHash> ex = universe.stream().filter(u -> rnd.nextDouble() < 0.1).collect(Collectors.toSet());
            Set<UrlHash> expected = new TreeSet<>(sets.get(0));
            expected.retainAll(sets.get(1));
            expected.retainAll(sets.get(2));
            expected.removeAll(ex);
            List<Candidate> got = Intersection.intersect(lists, List.of(list("x", new ArrayList<>(ex))));
            assertEquals(new ArrayList<>(expected), got.stream().map(Candidate::url).toList());
            for (Candidate c : got) {
                for (int t = 0; t < 3; t++) assertEquals(WordHash.of("w" + t), c.postings().get(t).word());
            }
        }
    }

    @Test
    void listsReadBackFromTheIndexJoinOnEveryCommonUrl() {
        // the RWI returns postings in ring order (alphabet A..Z a..z 0..9 - _), which is not String order: hashes
        // starting with '-', digits, upper and lower case are mixed here so a join in the wrong order misses them
        var rwi = new org.peerdex.storage.rwi.ReverseWordIndex(new org.peerdex.storage.kv.MemoryStore(),
                new org.peerdex.protocol.ring.Partitions(4));
        List<UrlHash> urls = new ArrayList<>();
        for (String first : List.of("-", "_", "0", "9", "A", "Z", "a", "z")) {
            for (int i = 0; i < 5; i++) urls.add(UrlHash.parse(first + "bcdefg" + (char) ('A' + i) + "hijk"));
        }
        List<Posting> all = new ArrayList<>();
        for (UrlHash u : urls) {
            all.add(posting("left", u));
            all.add(posting("right", u));
        }
        rwi.add(all, false);
        List<Candidate> got = Intersection.intersect(List.of(rwi.postings(WordHash.of("left")),
                rwi.postings(WordHash.of("right"))), List.of());
        assertEquals(Set.copyOf(urls), got.stream().map(Candidate::url).collect(Collectors.toSet()));
        assertEquals(urls.size(), got.size());
    }

    @Test
    void emptyListMeansNoCandidates() {
        UrlHash a = UrlHash.of("http://a.test/");
        assertTrue(Intersection.intersect(List.of(list("a", List.of(a)), List.of()), List.of()).isEmpty());
    }

    @Test
    void topKKeepsTheBestInOrder() {
        TopK<Integer> top = new TopK<>(5, Comparator.<Integer>naturalOrder().reversed());
        new Random(3).ints(1000, 0, 100_000).forEach(top::offer);
        List<Integer> best = top.sorted();
        assertEquals(5, best.size());
        for (int i = 1; i < best.size(); i++) assertTrue(best.get(i - 1) >= best.get(i));
        assertFalse(top.offer(-1));
    }

    @Test
    void phrasePositionsRuleOutDocumentsWithoutTheSequence() {
        UrlHash u = UrlHash.of("http://a.test/");
        assertTrue(PhraseMatcher.possibleByPositions(List.of(posting("a", u, 3, 9), posting("b", u, 10))));
        assertFalse(PhraseMatcher.possibleByPositions(List.of(posting("a", u, 3, 9), posting("b", u, 2, 12))));
        assertTrue(PhraseMatcher.inText("The write-ahead log records", List.of("write", "ahead", "log")));
        assertFalse(PhraseMatcher.inText("log write-ahead", List.of("write", "ahead", "log")));
    }

    @Test
    void snippetIsTheWindowWithTheMostQueryWords() {
        String filler = "lorem ipsum dolor sit amet ".repeat(40);
        String text = filler + "The tarn_dump tool writes a consistent snapshot of a running database. " + filler;
        String s = Snippets.build(text, Set.of("tarn_dump", "snapshot"), "");
        assertTrue(s.contains("tarn_dump") && s.contains("snapshot"), s);
        assertTrue(s.length() <= Snippets.WINDOW + 6);
    }
}
