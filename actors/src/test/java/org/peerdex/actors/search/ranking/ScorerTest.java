package org.peerdex.actors.search.ranking;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.peerdex.actors.search.Candidate;
import org.peerdex.actors.search.query.Query;
import org.peerdex.actors.search.query.QueryParser;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.storage.rwi.Posting;

public class ScorerTest {
    public static Candidate doc(String url, int flags, int hits, int wordsInText) {
        return new Candidate(UrlHash.of(url), List.of(new Posting(WordHash.of("backup"), UrlHash.of(url), null, flags,
                hits, new int[] {5}, wordsInText, 4, 20000, "en", 'h', 3, 1, url.length(), 1, 0)));
    }

    Scorer scorer(RankingProfile p, Map<UrlHash, Double> feedback) {
        Query q = QueryParser.parse("backup");
        return new Scorer(q, p, new CorpusStats(100, Map.of("backup", 3L), 200), LinkRank.NONE,
                u -> feedback.getOrDefault(u, 0.0), "", "text");
    }

    @Test
    void titleHitsOutrankBodyHitsWithTheDefaultProfile() {
        Scorer s = scorer(RankingProfile.defaults(), Map.of());
        var body = s.add(doc("http://a.test/notes.html", 0, 4, 200));
        var title = s.add(doc("http://a.test/backup.html", Posting.IN_TITLE | Posting.IN_URL, 2, 200));
        assertTrue(s.score(title) > s.score(body));
        assertEquals(title.url(), s.ranked().get(0).url());
    }

    @Test
    void bm25PrefersMoreOccurrencesInShorterDocuments() {
        Scorer s = scorer(RankingProfile.defaults(), Map.of());
        var dense = s.add(doc("http://a.test/x", 0, 6, 100));
        var sparse = s.add(doc("http://a.test/y", 0, 1, 1000));
        assertTrue(s.explain(dense).factors().get("bm25").raw() > s.explain(sparse).factors().get("bm25").raw());
    }

    @Test
    void explanationsSumToTheScore() {
        Scorer s = scorer(RankingProfile.defaults(), Map.of(UrlHash.of("http://a.test/b"), 1.0));
        var a = s.add(doc("http://a.test/a", Posting.IN_TITLE, 3, 150));
        var b = s.add(doc("http://a.test/b", Posting.IN_HEADING, 1, 900));
        var c = s.add(doc("http://a.test/c", 0, 2, 400));
        for (var x : List.of(a, b, c)) {
            Explanation e = s.explain(x);
            double sum = e.factors().values().stream().mapToDouble(Explanation.Part::contribution).sum();
            assertEquals(s.score(x), sum, 1e-9);
            assertEquals(e.score(), sum, 1e-9);
            e.factors().forEach((k, part) -> {
                if (!k.equals("linkRank") && !k.equals("feedback")) {
                    assertTrue(part.normalized() >= 0 && part.normalized() <= 1, k);
                }
            });
        }
        assertEquals(RankingProfile.defaults().coefficient(Factor.FEEDBACK), s.explain(b).factors().get("feedback")
                .contribution(), 1e-9);
    }

    @Test
    void feedbackAndProfilesChangeTheOrder() {
        UrlHash weak = UrlHash.of("http://a.test/z");
        Scorer plain = scorer(RankingProfile.defaults(), Map.of());
        plain.add(doc("http://a.test/backup", Posting.IN_TITLE, 3, 100));
        plain.add(doc("http://a.test/z", 0, 1, 100));
        assertTrue(!plain.ranked().get(0).url().equals(weak));
        Scorer promoted = scorer(RankingProfile.defaults(), Map.of(weak, 3.0));
        promoted.add(doc("http://a.test/backup", Posting.IN_TITLE, 3, 100));
        promoted.add(doc("http://a.test/z", 0, 1, 100));
        assertEquals(weak, promoted.ranked().get(0).url());
    }

    @Test
    void aScoreDoesNotDependOnWhichOtherCandidatesArrived() {
        // a peer that sees a part of the matches (the DHT's best per partition) must rank them as a central index
        // over every match does
        Candidate a = doc("http://a.test/a", Posting.IN_TITLE, 3, 150);
        Candidate b = doc("http://a.test/b", Posting.IN_HEADING, 1, 900);
        Scorer few = scorer(RankingProfile.defaults(), Map.of());
        Scorer many = scorer(RankingProfile.defaults(), Map.of());
        var inFew = few.add(a);
        few.add(b);
        var inMany = many.add(a);
        many.add(b);
        for (int i = 0; i < 20; i++) many.add(doc("http://b.test/" + i, i % 3 == 0 ? Posting.IN_URL : 0, 1 + i, 50 + 40 * i));
        assertEquals(few.score(inFew), many.score(inMany), 1e-12);
        assertEquals(few.score(inFew), few.scoreOf(a), 1e-12);
    }

    @Test
    void newerStatisticsRescoreTheCandidatesAddedBefore() {
        Query q = QueryParser.parse("backup tape");
        Scorer s = new Scorer(q, RankingProfile.defaults(), new CorpusStats(1000, Map.of("backup", 5L, "tape", 5L), 0),
                LinkRank.NONE, u -> 0, "", "text");
        // "backup" dense, "tape" sparse in one page; the other way round in the other
        var x = s.add(two("http://a.test/x", 8, 1));
        var y = s.add(two("http://a.test/y", 1, 8));
        assertEquals(s.score(x), s.score(y), 1e-9, "equal df: mirror images score alike");
        // the DHT reports "tape" as common: "backup" weighs more, for the candidates already added too
        s.updateStats(s.stats().merge(new CorpusStats(1000, Map.of("tape", 600L), 0)));
        assertTrue(s.score(x) > s.score(y), "rare-word density wins under the merged statistics");
        assertEquals(600L, s.stats().documentFrequency().get("tape"));
        assertEquals(5L, s.stats().documentFrequency().get("backup"));
    }

    private static Candidate two(String url, int backupHits, int tapeHits) {
        UrlHash u = UrlHash.of(url);
        return new Candidate(u, List.of(
                new Posting(WordHash.of("backup"), u, null, 0, backupHits, new int[] {5}, 300, 4, 20000, "en", 'h', 3, 1, 20, 1, 0),
                new Posting(WordHash.of("tape"), u, null, 0, tapeHits, new int[] {5}, 300, 4, 20000, "en", 'h', 3, 1, 20, 1, 0)));
    }

    @Test
    void theMergedStatisticsKeepTheLargerCountOfEachSource() {
        CorpusStats local = new CorpusStats(40, Map.of("a", 7L, "b", 3L), 0);
        CorpusStats dht = new CorpusStats(2000, Map.of("a", 300L), 0);
        CorpusStats m = local.merge(dht);
        assertEquals(2000, m.documents());
        assertEquals(Map.of("a", 300L, "b", 3L), m.documentFrequency());
        assertTrue(new CorpusStats(10, Map.of("a", 50L), 0).idf("a") > 0, "N estimated below df: no negative idf");
    }

    @Test
    void profileJsonRoundTripsAndRejectsUnknownFactors() {
        RankingProfile p = RankingProfile.defaults().with(Factor.DATE, 7);
        @SuppressWarnings("unchecked")
        Map<String, Object> json = (Map<String, Object>) (Map<String, ?>) p.toJson();
        assertEquals(p, RankingProfile.fromJson(json, RankingProfile.defaults()));
        assertEquals("titleExactness", Factor.TITLE_EXACTNESS.key());
        try {
            RankingProfile.fromJson(Map.of("coefficients", Map.of("bogus", 1)), p);
            throw new AssertionError("accepted an unknown factor");
        } catch (IllegalArgumentException expected) {
            assertTrue(expected.getMessage().contains("bogus"));
        }
    }

    @Test
    void pageRankFavoursTheHostEveryoneLinksTo() {
        HostPageRank r = HostPageRank.compute(List.of(new HostPageRank.Edge("aaaaaa", "hubhub"),
                new HostPageRank.Edge("bbbbbb", "hubhub"), new HostPageRank.Edge("cccccc", "hubhub"),
                new HostPageRank.Edge("hubhub", "aaaaaa")));
        assertEquals(1.0, r.rank("hubhub"), 1e-9);
        assertTrue(r.rank("aaaaaa") > r.rank("bbbbbb"));
        assertEquals(0.0, r.rank("unknown"));
    }
}
