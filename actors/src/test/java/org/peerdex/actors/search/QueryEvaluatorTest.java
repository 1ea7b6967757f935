package org.peerdex.actors.search;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.peerdex.actors.search.query.Query;
import org.peerdex.actors.search.query.QueryParser;
import org.peerdex.actors.search.ranking.CorpusStats;
import org.peerdex.actors.search.ranking.Factor;
import org.peerdex.actors.search.ranking.Feedback;
import org.peerdex.actors.search.ranking.FeedbackStore;
import org.peerdex.actors.search.ranking.HostPageRank;
import org.peerdex.actors.search.ranking.LinkRank;
import org.peerdex.actors.search.ranking.RankingProfile;
import org.peerdex.actors.search.ranking.Scorer;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.protocol.ring.Partitions;
import org.peerdex.storage.PeerStorage;
import org.peerdex.storage.rwi.Posting;

/**
 * Query evaluation against exhaustive scoring, on the PostgreSQL 15 manual indexed into a real LevelDB store
 * through the project's own parse and index path: for 1-, 2- and 3-word queries (words on nearly every page among
 * them, exclusions and a phrase), under the default profile and one with negative coefficients, the evaluation's
 * top 10 (URLs, order and scores) equals scoring every match and sorting (ties by URL hash). The corpus has about
 * 1,200 pages, too few to pass the 50,000-candidate cut, so a cut of 50 shows what the old order (cut in URL-hash
 * order, then score) lost.
 */
class QueryEvaluatorTest {
    static final Path CORPUS = Path.of("/usr/share/doc/postgresql-doc-15/html");
    static final String BASE = "http://docs.example/pg/";
    static final List<String> QUERIES = List.of(
            "the", "postgresql", "table", "function", "returns", "index",
            "the table", "of the", "create table", "data type", "query plan", "function returns",
            "the of and", "select from where", "server configuration parameter", "create index on",
            "table -the", "\"create table\" column", "function -sql -returns");

    @TempDir
    static Path dir;
    static PeerStorage storage;
    static LinkRank linkRank;
    static FeedbackStore feedback;

    @BeforeAll
    static void index() {
        assumeTrue(Files.isDirectory(CORPUS), "skipped: no " + CORPUS
                + " (scripts/install-test-deps.sh installs postgresql-doc-15)");
        storage = PeerStorage.openLevelDb(dir, new Partitions(4));
        CorpusIndexer.Result indexed = CorpusIndexer.index(storage, CORPUS, BASE, 100_000);
        linkRank = HostPageRank.compute(indexed.hostEdges());
        // both tiers of the index: everything folded into blocks, then a slice written again as fresh entries
        // (the same postings, replacing the folded ones) and a few pages deleted (tombstones over blocks)
        // blocks carry their highest one-word score, as the node's search backend has them folded
        storage.rwi().scoreBlocksWith(Scorer.ONE_WORD_BLOCKS);
        storage.rwi().foldAll();
        List<UrlHash> all = new ArrayList<>(indexed.urls().values());
        for (int i = 0; i < all.size(); i += 7) {
            List<org.peerdex.storage.rwi.Posting> again = new ArrayList<>();
            for (var w : storage.rwi().wordsOf(all.get(i))) storage.rwi().get(w, all.get(i)).ifPresent(again::add);
            storage.rwi().add(again, false);
        }
        for (int i = 3; i < all.size(); i += 101) storage.rwi().deleteUrl(all.get(i));
        // some of the user's feedback, so that post-ranking takes part in the order
        feedback = new FeedbackStore(storage.store());
        List<UrlHash> urls = new ArrayList<>(indexed.urls().values());
        for (int i = 0; i < urls.size(); i += 97) {
            feedback.record(urls.get(i), i % 2 == 0 ? Feedback.PROMOTE : Feedback.DEMOTE);
            if (i % 3 == 0) feedback.record(urls.get(i), Feedback.BOOKMARK);
        }
    }

    @AfterAll
    static void close() {
        if (storage != null) storage.close();
    }

    /** Title and positions count against a page here: the bound must take the worst case of a negative factor. */
    static RankingProfile negative() {
        return RankingProfile.defaults().with(Factor.TITLE, -3).with(Factor.POSITION, -2).with(Factor.HIT_COUNT, -1)
                .with(Factor.ANCHOR, -2).with(Factor.WORD_DISTANCE, -1).with(Factor.TITLE_EXACTNESS, -4);
    }

    static Scorer scorer(Query q, RankingProfile profile, CorpusStats stats) {
        return new Scorer(q, profile, stats, linkRank, feedback::value, "", "text");
    }

    /** The statistics every way of evaluating uses: N documents, each term's full posting count. */
    static CorpusStats stats(Query q) {
        Map<String, Long> df = new HashMap<>();
        for (String t : q.terms()) df.put(t, (long) storage.rwi().postings(WordHash.of(t)).size());
        return new CorpusStats(storage.stats().documents(), df, 0);
    }

    /** Every match of {@code q}, read in full and joined, as the old lookup did, without a cut. */
    static List<Candidate> allMatches(Query q) {
        long now = System.currentTimeMillis() / 1000;
        String lang = q.language().orElse("");
        List<List<Posting>> lists = new ArrayList<>();
        for (String t : q.terms()) {
            lists.add(storage.rwi().postings(WordHash.of(t)).stream().filter(p -> QueryEvaluator.keep(p, lang, now)).toList());
        }
        List<List<Posting>> exclusions = new ArrayList<>();
        for (String e : q.exclusions()) exclusions.add(storage.rwi().postings(WordHash.of(e)));
        return Intersection.intersect(lists, exclusions).stream()
                .filter(c -> QueryEvaluator.phrasesPossible(q, c.postings())).toList();
    }

    /** Scores every candidate and sorts them, best first, ties by URL hash. */
    static List<Scorer.Scored> ranked(Scorer scorer, List<Candidate> candidates) {
        for (Candidate c : candidates) scorer.add(c);
        return scorer.ranked();
    }

    @Test
    void topTenIsExactlyTheTopTenOfScoringEveryMatch() {
        LocalIndexSource source = new LocalIndexSource(storage, Runnable::run);
        long pruned = 0;
        long skippedBlocks = 0;
        long mostPostings = 0;
        for (RankingProfile profile : List.of(RankingProfile.defaults(), negative())) {
            for (String text : QUERIES) {
                Query q = QueryParser.parse(text);
                CorpusStats stats = stats(q);
                for (long df : stats.documentFrequency().values()) mostPostings = Math.max(mostPostings, df);
                List<Candidate> matches = allMatches(q);
                Scorer reference = scorer(q, profile, stats);
                List<Scorer.Scored> expected = ranked(reference, matches).stream().limit(10).toList();

                LocalIndexSource.Lookup found = source.evaluate(q, scorer(q, profile, new CorpusStats(1, Map.of(), 0)), 10);
                String what = profile.coefficient(Factor.TITLE) + " / '" + text + "'";
                assertEquals(stats, found.stats(), what);
                assertEquals(expected.stream().map(Scorer.Scored::url).toList(),
                        found.evaluation().top().stream().map(Candidate::url).toList(), what);
                for (int i = 0; i < expected.size(); i++) {
                    assertEquals(reference.score(expected.get(i)), found.evaluation().scores()[i], what + " #" + i);
                }
                QueryEvaluator.Evaluation e = found.evaluation();
                assertTrue(e.scored() + e.pruned() <= e.aligned() && e.aligned() >= matches.size(), what);
                assertTrue(e.scored() >= Math.min(10, matches.size()), what);
                pruned += e.pruned();
                skippedBlocks += e.skippedBlocks();
                if (e.skippedBlocks() > 0) {
                    assertTrue(profile.equals(RankingProfile.defaults()) && q.terms().size() == 1, "blocks skipped: " + what);
                }
                System.out.printf("%-40s matches %5d aligned %5d scored %5d pruned %5d blocks skipped %3d%n", what,
                        matches.size(), e.aligned(), e.scored(), e.pruned(), e.skippedBlocks());
            }
        }
        assertTrue(mostPostings > 1000, "a word on nearly every page: " + mostPostings);
        assertTrue(QUERIES.stream().allMatch(t -> !allMatches(QueryParser.parse(t)).isEmpty()), "every query matches");
        // the bound passed over matches without reading their other postings, and the top stayed exact
        assertTrue(pruned > 0, "pruned " + pruned);
        // one-word queries under the default profile passed over whole blocks by their stored highest score
        assertTrue(skippedBlocks > 0, "blocks skipped " + skippedBlocks);
    }

    @Test
    void aPageOnlyFeedbackLiftsIsFoundInABlockItsScoreAloneWouldSkip() {
        LocalIndexSource source = new LocalIndexSource(storage, Runnable::run);
        Query q = QueryParser.parse("the");
        LocalIndexSource.Lookup before = source.evaluate(q, scorer(q, RankingProfile.defaults(),
                new CorpusStats(1, Map.of(), 0)), 10);
        assertTrue(before.evaluation().skippedBlocks() > 0, "blocks skipped: " + before.evaluation().skippedBlocks());
        double tenth = before.evaluation().scores()[9];
        // a page in a folded stretch of a block whose highest score is far below the tenth best: a skipped block
        UrlHash lowest = null;
        try (org.peerdex.storage.rwi.PostingStream s = storage.rwi().stream(WordHash.of("the"))) {
            for (; !s.exhausted() && lowest == null; s.next()) {
                if (s.blockMaxScore(Scorer.ONE_WORD_BLOCKS.revision()) < tenth - 2) {
                    lowest = org.peerdex.storage.rwi.ReverseWordIndex.decode(s.key(), s.value()).url();
                }
            }
        }
        assertTrue(lowest != null, "no block below the tenth best score " + tenth);
        UrlHash promoted = lowest;
        assertTrue(!before.evaluation().top().stream().map(Candidate::url).toList().contains(promoted));
        int promotes = 6;
        java.util.Optional<FeedbackStore.Entry> prior = feedback.get(promoted);
        try {
            // each promote adds the feedback coefficient (8): more than every other factor together can give
            for (int i = 0; i < promotes; i++) feedback.record(promoted, Feedback.PROMOTE);
            LocalIndexSource.Lookup after = source.evaluate(q, scorer(q, RankingProfile.defaults(),
                    new CorpusStats(1, Map.of(), 0)), 10);
            assertEquals(promoted, after.evaluation().top().get(0).url());
            assertTrue(after.evaluation().skippedBlocks() > 0, "the other blocks are still skipped");
        } finally {
            feedback.record(promoted, Feedback.CLEAR);
            prior.ifPresent(e -> {
                for (int i = 0; i < e.promotes(); i++) feedback.record(promoted, Feedback.PROMOTE);
                for (int i = 0; i < e.demotes(); i++) feedback.record(promoted, Feedback.DEMOTE);
                if (e.bookmarked()) feedback.record(promoted, Feedback.BOOKMARK);
            });
        }
    }

    @Test
    void aLowCutKeepsTheBestMatchesWhereCuttingInUrlHashOrderLostThem() {
        int cut = 50;
        LocalIndexSource source = new LocalIndexSource(storage, Runnable::run, cut);
        int oldDiffers = 0;
        int common = 0;
        for (String text : QUERIES) {
            Query q = QueryParser.parse(text);
            List<Candidate> matches = allMatches(q);
            if (matches.size() <= cut) continue;
            common++;
            CorpusStats stats = stats(q);
            List<UrlHash> expected = ranked(scorer(q, RankingProfile.defaults(), stats), matches).stream().limit(10)
                    .map(Scorer.Scored::url).toList();

            // the source hands ranking its best `cut` candidates, and ranking puts the true top 10 first
            CandidateSource.CandidatesFound found = source.lookup(q, scorer(q, RankingProfile.defaults(), stats));
            assertEquals(cut, found.candidates().size(), text);
            List<UrlHash> now = ranked(scorer(q, RankingProfile.defaults(), found.stats()), found.candidates()).stream()
                    .limit(10).map(Scorer.Scored::url).toList();
            assertEquals(expected, now, text);

            // the old lookup: the first `cut` joined candidates in URL-hash order, then scored
            List<UrlHash> old = ranked(scorer(q, RankingProfile.defaults(), stats), matches.subList(0, cut)).stream()
                    .limit(10).map(Scorer.Scored::url).toList();
            if (!old.equals(expected)) oldDiffers++;
            System.out.printf("cut %d, '%s': %d matches, old top 10 %s the exhaustive one%n", cut, text, matches.size(),
                    old.equals(expected) ? "equals" : "differs from");
        }
        assertTrue(common >= 5, "queries with more than " + cut + " matches: " + common);
        assertTrue(oldDiffers > 0, "cutting before scoring changed no top 10 of " + common);
    }
}
