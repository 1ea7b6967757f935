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

    /**
     * The word parts a holder ranks by when the searcher names the query's shape: over random pages and queries of
     * 2 to 4 words their sum never falls below the searcher's pre-ranking score (what lets the searcher cut
     * candidates by it), one word's part is the one-word score, and no part exceeds the one-word score (what the
     * index's block bounds hold).
     */
    @Test
    void wordPartsBoundTheScoreFromAboveAndTheBlocksBoundTheParts() {
        java.util.SplittableRandom r = new java.util.SplittableRandom(20261207);
        String[] vocabulary = {"alpha", "beta", "gamma", "delta", "epsilon"};
        double worstGap = 0;
        double gapSum = 0;
        for (int round = 0; round < 3000; round++) {
            int k = 2 + r.nextInt(3);
            StringBuilder text = new StringBuilder();
            Map<String, Long> df = new java.util.HashMap<>();
            for (int t = 0; t < k; t++) {
                text.append(t == 0 ? "" : " ").append(vocabulary[t]);
                df.put(vocabulary[t], 1L + r.nextInt(5000));
            }
            Query q = QueryParser.parse(text.toString());
            Scorer s = new Scorer(q, RankingProfile.defaults(), new CorpusStats(10_000, df, 0), LinkRank.NONE,
                    u -> 0, "", "text");
            UrlHash u = UrlHash.of("https://site" + r.nextInt(100) + ".test/" + "p/".repeat(r.nextInt(5)) + round);
            int wordsInText = 100 + r.nextInt(3000);
            int[] flags = new int[k];
            int inTitle = 0;
            for (int t = 0; t < k; t++) {
                flags[t] = r.nextInt(1 << 8);
                if ((flags[t] & Posting.IN_TITLE) != 0) inTitle++;
            }
            // a title holds at least the query words found in it
            int wordsInTitle = inTitle + r.nextInt(12);
            int lastModified = r.nextInt(25_000);
            char doctype = r.nextBoolean() ? 'h' : 'p';
            int linksLocal = r.nextInt(100);
            int linksOther = r.nextInt(100);
            int urlLength = 10 + r.nextInt(150);
            int urlComponents = r.nextInt(10);
            double idfSum = 0;
            for (int t = 0; t < k; t++) idfSum += s.stats().idf(vocabulary[t]);
            List<Posting> ps = new java.util.ArrayList<>();
            double parts = 0;
            for (int t = 0; t < k; t++) {
                int[] positions = new int[1 + r.nextInt(4)];
                for (int j = 0; j < positions.length; j++) {
                    positions[j] = (j == 0 ? r.nextInt(300) : positions[j - 1] + 1 + r.nextInt(80));
                }
                Posting p = new Posting(WordHash.of(vocabulary[t]), u, null, flags[t], 1 + r.nextInt(20),
                        positions, wordsInText, wordsInTitle, lastModified, "en", doctype, linksLocal, linksOther,
                        urlLength, urlComponents, 0);
                ps.add(p);
                double part = Scorer.wordPartDefault(p, k, s.stats().idf(vocabulary[t]) / idfSum);
                assertTrue(part <= Scorer.oneWordDefault(p) + 1e-12, "a part above the one-word score");
                parts += part;
            }
            double score = s.scoreOf(new Candidate(u, ps));
            assertTrue(parts + 1e-9 >= score, "parts " + parts + " below the score " + score);
            worstGap = Math.max(worstGap, parts - score);
            gapSum += parts - score;
            Posting one = ps.get(0);
            assertEquals(Scorer.oneWordDefault(one), Scorer.wordPartDefault(one, 1, 1.0), 1e-12);
        }
        // a bound, and a near one where pages are alike in what the bounds cannot split (word distance, at most 1;
        // term frequency and first positions far apart between the words)
        System.out.println("word parts: at most " + worstGap + " above the score, " + gapSum / 3000 + " on average");
        assertTrue(gapSum / 3000 < 2, "parts run on average " + gapSum / 3000 + " above a score");
        assertEquals(0.0, new Scorer(QueryParser.parse("alpha beta"), RankingProfile.defaults(),
                new CorpusStats(10, Map.of(), 0), LinkRank.NONE, x -> 0, "", "text").wordPartsSlack(0), 1e-12);
        assertTrue(Double.isNaN(new Scorer(QueryParser.parse("alpha beta"), RankingProfile.defaults().with(Factor.DATE, 7),
                new CorpusStats(10, Map.of(), 0), LinkRank.NONE, x -> 0, "", "text").wordPartsSlack(0)));
    }
}
