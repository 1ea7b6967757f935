package org.peerdex.actors.search.ranking;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import org.peerdex.actors.search.Candidate;
import org.peerdex.actors.search.query.Query;
import org.peerdex.actors.search.query.QueryParser;
import org.peerdex.protocol.hash.Base64Order;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.storage.rwi.BlockScore;
import org.peerdex.storage.rwi.Posting;
import org.peerdex.storage.rwi.ReverseWordIndex;

/**
 * Scores candidates with a {@link RankingProfile}: each pre-ranking factor's raw value is mapped to [0, 1] by a
 * fixed map of its own ({@link #normalize}: shares as they are, counts and BM25 saturating), multiplied by its
 * coefficient and summed; the post-ranking factors (link rank, feedback) are added unnormalized. A score depends
 * on the candidate and the corpus statistics only, never on which other candidates arrived: a peer that sees a
 * part of the matches (the DHT's best per partition) ranks them as a central index over every match would, and a
 * DHT holder can cut its answer by the same score. Not thread-safe: one per query, owned by the {@code Ranking}
 * actor.
 */
public final class Scorer {
    private static final Factor[] PRE = Arrays.stream(Factor.values()).filter(f -> !f.post())
            .toArray(Factor[]::new);
    private static final RankingProfile DEFAULT_PROFILE = RankingProfile.defaults();
    private static final double K1 = 1.2;
    private static final double B = 0.75;

    /** A candidate with its raw pre-ranking features and post-ranking values. */
    public record Scored(Candidate candidate, double[] raw, double linkRank, double feedback) {
        public UrlHash url() {
            return candidate.url();
        }
    }

    private final Query query;
    private final RankingProfile profile;
    private CorpusStats stats;
    private final LinkRank linkRank;
    private final ToDoubleFunction<UrlHash> feedback;
    private final String preferredLanguage;
    private final String contentDomain;
    private final double[] coef = new double[PRE.length];
    /** the post-ranking coefficients, read once (a map look-up each, for every candidate scored, cost ~15% of it) */
    private final double linkRankCoef;
    private final double feedbackCoef;
    /** the profile's coefficients are the default ones, which the blocks' stored scores were taken under */
    private final boolean defaultCoefficients;
    /** each query term's idf under {@link #stats}, by term index */
    private double[] idfs;
    private final List<Scored> all = new ArrayList<>();
    private final Map<UrlHash, Scored> byUrl = new HashMap<>();

    public Scorer(Query query, RankingProfile profile, CorpusStats stats, LinkRank linkRank,
                  ToDoubleFunction<UrlHash> feedback, String preferredLanguage, String contentDomain) {
        this.query = query;
        this.profile = profile;
        this.stats = stats;
        this.linkRank = linkRank;
        this.feedback = feedback;
        this.preferredLanguage = query.language().orElse(preferredLanguage == null ? "" : preferredLanguage);
        this.contentDomain = contentDomain == null ? "text" : contentDomain;
        for (int i = 0; i < PRE.length; i++) coef[i] = profile.coefficient(PRE[i]);
        this.linkRankCoef = profile.coefficient(Factor.LINK_RANK);
        this.feedbackCoef = profile.coefficient(Factor.FEEDBACK);
        this.defaultCoefficients = DEFAULT_PROFILE.sameCoefficients(profile);
        this.idfs = idfs(query, stats);
    }

    private static double[] idfs(Query query, CorpusStats stats) {
        double[] out = new double[query.terms().size()];
        for (int t = 0; t < out.length; t++) out[t] = stats.idf(query.terms().get(t));
        return out;
    }

    public RankingProfile profile() {
        return profile;
    }

    /** Newer statistics (more sources answered): every candidate's features are computed again under them. */
    public void updateStats(CorpusStats s) {
        if (s == null || s.equals(stats)) return;
        this.stats = s;
        this.idfs = idfs(query, s);
        for (Scored x : all) System.arraycopy(features(x.candidate()), 0, x.raw, 0, PRE.length);
    }

    public CorpusStats stats() {
        return stats;
    }

    public int size() {
        return all.size();
    }

    public Scored add(Candidate c) {
        double[] raw = features(c);
        Scored s = new Scored(c, raw, linkRank.rank(c.url().hostHash()), feedback.applyAsDouble(c.url()));
        all.add(s);
        byUrl.put(c.url(), s);
        return s;
    }

    /** Every candidate added, in arrival order. */
    public List<Scored> all() {
        return Collections.unmodifiableList(all);
    }

    public Scored get(UrlHash url) {
        return byUrl.get(url);
    }

    private double norm(int i, double v) {
        return normalize(PRE[i], v);
    }

    /** DATE's zero, as an epoch day (2010-01-01): older and undated documents get none of it. */
    private static final double DATE_ORIGIN_DAY = 14_610;
    /** DATE's scale in days: a document 20 years newer gains the factor's whole coefficient. */
    private static final double DATE_SPAN_DAYS = 20 * 365.25;

    /**
     * The fixed map of a factor's raw value to [0, 1]: shares and inverse lengths are in [0, 1] already; log
     * counts (hits, links) saturate as x/(x+2); term frequency (hits per word of text) as x/(x+0.02); the date
     * is linear over 2010..2030; BM25 arrives as its share of the best a document can reach for the query's
     * terms (every term at full saturation).
     */
    static double normalize(Factor f, double v) {
        return switch (f) {
            case LINKS_LOCAL, LINKS_OTHER, HIT_COUNT -> v <= 0 ? 0 : v / (v + 2);
            case TERM_FREQUENCY -> v <= 0 ? 0 : v / (v + 0.02);
            case DATE -> Math.max(0, Math.min(1, (v - DATE_ORIGIN_DAY) / DATE_SPAN_DAYS));
            default -> Math.max(0, Math.min(1, v));
        };
    }

    public double score(Scored s) {
        return preScore(s.raw) + linkRankCoef * s.linkRank + feedbackCoef * s.feedback;
    }

    /** The pre-ranking part of a score: the sum of coefficient × normalized value. */
    private double preScore(double[] raw) {
        double total = 0;
        for (int i = 0; i < PRE.length; i++) if (coef[i] != 0) total += coef[i] * norm(i, raw[i]);
        return total;
    }

    /** Scores one-word candidates under the default profile; only read-only methods are used (thread-safe). */
    private static final Scorer ONE_WORD_DEFAULT = new Scorer(QueryParser.parse("word"),
            RankingProfile.defaults(), new CorpusStats(1, Map.of(), 0), LinkRank.NONE, u -> 0, "", "text");

    /**
     * The pre-ranking score of {@code p} as the candidate of a one-word query under the default profile, no
     * preferred language, text media: what a DHT holder ranks its answer by (one word's BM25 share needs no
     * corpus statistics).
     */
    public static double oneWordDefault(Posting p) {
        // called for every posting a holder scans: no candidate, no post-ranking (none without link rank)
        return ONE_WORD_DEFAULT.preScore(ONE_WORD_DEFAULT.features(p.url(), List.of(p)));
    }

    /**
     * What the index bounds its blocks by ({@link ReverseWordIndex#scoreBlocksWith}): {@link #oneWordDefault}. Its
     * revision is a fingerprint of the function itself (the scores of fixed probe postings), so a build that
     * scores one-word queries otherwise never trusts the bounds of blocks another build folded.
     */
    public static final BlockScore ONE_WORD_BLOCKS = new BlockScore() {
        private final int revision = fingerprint();

        @Override
        public int revision() {
            return revision;
        }

        @Override
        public double of(Posting p) {
            return oneWordDefault(p);
        }
    };

    /** The scores of 64 fixed, varied postings, hashed to a positive int. */
    private static int fingerprint() {
        java.util.SplittableRandom r = new java.util.SplittableRandom(20261204);
        long h = 1;
        for (int i = 0; i < 64; i++) {
            int[] positions = new int[1 + r.nextInt(4)];
            for (int j = 0; j < positions.length; j++) positions[j] = (j == 0 ? 0 : positions[j - 1]) + r.nextInt(200);
            Posting p = new Posting(WordHash.of("probe" + i), UrlHash.of("https://probe" + r.nextInt(1000) + ".test/"
                    + "a/".repeat(r.nextInt(6)) + i), null, r.nextInt(1 << 12), 1 + r.nextInt(30), positions,
                    1 + r.nextInt(5000), r.nextInt(30), r.nextInt(25_000), i % 3 == 0 ? "en" : "", i % 5 == 0 ? 'p' : 'h',
                    r.nextInt(200), r.nextInt(200), 10 + r.nextInt(200), r.nextInt(12), 0);
            // rounded: a platform whose log1p differs in the last bit must not see another revision
            h = h * 31 + Math.round(oneWordDefault(p) * 1e9);
        }
        int v = (int) (h ^ h >>> 32) & Integer.MAX_VALUE;
        return v == 0 ? 1 : v;
    }

    /**
     * How far above a block's highest {@link #ONE_WORD_BLOCKS} score this scorer may score a candidate of the
     * block, given that the candidate's feedback value is at most {@code maxFeedback}; NaN when the blocks' scores
     * bound nothing for this scorer. They bound a one-word query under the default coefficients, text media and
     * the nominal average length, where this scorer's pre-ranking score is the block score exactly but for the
     * preferred language (the block score counts none) and the post-ranking factors (link rank at its
     * {@link LinkRank#max()}, feedback at the caller's bound).
     */
    public double oneWordBlockSlack(double maxFeedback) {
        return query.terms().size() != 1 ? Double.NaN : wordPartsSlack(maxFeedback);
    }

    /**
     * A word's part of a {@code terms}-word query's pre-ranking score under the default profile, text media and
     * the nominal average length, from its posting alone: what a holder ranks a top lookup's answer by when the
     * searcher names the query's shape ({@code docs/protocol.md}, "Word parts"). {@code bm25Share} is the word's idf
     * over the sum of the query's idfs. The parts of a page's postings of all the query's words sum to at least its
     * pre-ranking score under those settings, and nearly to it: the shares of terms (title, URL, ...) and the
     * document's own factors count 1/terms each, BM25 counts by its share (both exact), and where a factor is not a
     * sum of its words' parts the part bounds it from above: title exactness before its cap at 1, hit count and
     * term frequency by subadditivity (their maps are concave through 0), position by convexity (the mean of
     * 1/(1+x/10) is at least its value at the mean), word distance at its best (1/terms each). With one word it is
     * {@link #oneWordDefault}; with any it is at most that, so the index's one-word block bounds bound it too.
     */
    public static double wordPartDefault(Posting p, int terms, double bm25Share) {
        if (terms <= 1) return oneWordDefault(p);
        double k = terms;
        double[] c = ONE_WORD_DEFAULT.coef;
        double dl = Math.max(1, p.wordsInText());
        double h = p.hitCount();
        double total = 0;
        for (int i = 0; i < PRE.length; i++) {
            if (c[i] == 0) continue;
            Factor f = PRE[i];
            double v = switch (f) {
                case TITLE, URL, ANCHOR, EMPHASIS, HEADING, DESCRIPTION, KEYWORDS, AUTHOR ->
                        p.has(FLAG_BITS[flagIndex(f)]) ? 1 / k : 0;
                case TITLE_EXACTNESS -> p.has(Posting.IN_TITLE) ? 1.0 / Math.max(1, p.wordsInTitle()) : 0;
                case HIT_COUNT -> normalize(f, Math.log1p(h));
                case TERM_FREQUENCY -> normalize(f, h / (dl + 1) / k);
                case POSITION -> 1.0 / (1 + p.firstPosition() / 10.0) / k;
                case WORD_DISTANCE -> 1 / k;
                case LANGUAGE -> 0;
                case BM25 -> Math.min(1, bm25Share) * h / (h + K1 * (1 - B + B * dl / CorpusStats.NOMINAL_LENGTH));
                default -> normalize(f, ownFeature(f, p.url(), p)) / k;
            };
            total += c[i] * v;
        }
        return total;
    }

    /** A document's own factor (its raw value) from the page's hash and any of its postings; media for text. */
    private static double ownFeature(Factor f, UrlHash page, Posting any) {
        return switch (f) {
            case DOMAIN_LENGTH -> 1 - (Base64Order.value(page.value().charAt(11)) & 3) / 3.0;
            case URL_COMPONENTS -> 1.0 / (1 + any.urlComponents());
            case URL_LENGTH -> 1.0 / (1 + any.urlLength() / 20.0);
            case DATE -> any.lastModified();
            case WORDS_IN_TITLE -> 1.0 / (1 + any.wordsInTitle());
            case WORDS_IN_TEXT -> 1.0 / (1 + any.wordsInText() / 100.0);
            case LINKS_LOCAL -> Math.log1p(any.linksLocal());
            case LINKS_OTHER -> Math.log1p(any.linksOther());
            case MEDIA -> any.doctype() == 'h' || any.doctype() == 't' ? 1 : 0;
            default -> throw new IllegalArgumentException(f + " is not a factor of the document alone");
        };
    }

    /**
     * How far above the sum of its postings' {@link #wordPartDefault} parts this scorer may score a candidate whose
     * feedback value is at most {@code maxFeedback}; NaN when the parts bound nothing for this scorer (other
     * coefficients, media or average length). What the parts leave out: the preferred language and the
     * post-ranking factors (link rank at its {@link LinkRank#max()}, feedback at the caller's bound).
     */
    public double wordPartsSlack(double maxFeedback) {
        if (!"text".equals(contentDomain) || stats.averageLength() != CorpusStats.NOMINAL_LENGTH
                || !defaultCoefficients) {
            return Double.NaN;
        }
        double slack = 0;
        if (!preferredLanguage.isEmpty()) slack += Math.max(0, profile.coefficient(Factor.LANGUAGE));
        slack += Math.max(0, linkRankCoef * linkRank.max());
        slack += Math.max(0, feedbackCoef * maxFeedback);
        return slack;
    }

    /** The score {@code c} would have, without adding it (the DHT source uses it to choose what to fetch). */
    public double scoreOf(Candidate c) {
        return score(new Scored(c, features(c), linkRank.rank(c.url().hostHash()), feedback.applyAsDouble(c.url())));
    }

    /** The same scorer with another source of feedback values (for example a snapshot read once per query). */
    public Scorer withFeedback(ToDoubleFunction<UrlHash> values) {
        return new Scorer(query, profile, stats, linkRank, values, preferredLanguage, contentDomain);
    }

    /**
     * An upper bound of {@link #scoreOf} for every candidate of {@code page} whose postings of the first terms
     * (query-term order) are {@code known}, whatever the postings of the other terms: the document's own factors
     * (lengths, date, links, language, media; link rank and feedback) are exact, since any posting carries them,
     * the known terms count as they are, and each unknown term gives every factor it takes part in the best value
     * it could (the worst, under a negative coefficient): its flags set, BM25 at full saturation. With every term
     * known it is the exact score. For query evaluation: a candidate whose bound is below the k-th best score so
     * far cannot enter the top k, so its other postings need not be read.
     */
    public double upperBound(UrlHash page, List<Posting> known) {
        int k = query.terms().size();
        int j = known.size();
        if (j >= k) return scoreOf(new Candidate(page, known));
        Posting any = known.get(0);
        double[] doc = features(page, List.of(any));
        int unknown = k - j;
        int[] flagged = new int[FLAG_BITS.length];
        long hits = 0;
        double tf = 0;
        double pos = 0;
        double bm25Known = 0;
        double bm25Best = 0;
        double bm25Max = 0;
        double dl = Math.max(1, any.wordsInText());
        double avg = stats.averageLength();
        for (int t = 0; t < k; t++) {
            double idf = idfs[t];
            bm25Max += idf * (K1 + 1);
            if (t < j) {
                Posting p = known.get(t);
                for (int f = 0; f < FLAG_BITS.length; f++) if (p.has(FLAG_BITS[f])) flagged[f]++;
                hits += p.hitCount();
                tf += (double) p.hitCount() / (dl + 1);
                pos += p.firstPosition();
                double h = p.hitCount();
                double part = idf * h * (K1 + 1) / (h + K1 * (1 - B + B * dl / avg));
                bm25Known += part;
                bm25Best += part;
            } else {
                // h (K1 + 1) / (h + c) stays below K1 + 1 for every hit count
                bm25Best += idf * (K1 + 1);
            }
        }
        double wit = Math.max(1, any.wordsInTitle());
        double total = 0;
        for (int i = 0; i < PRE.length; i++) {
            if (coef[i] == 0) continue;
            double lo;
            double hi;
            switch (PRE[i]) {
                case TITLE, URL, ANCHOR, EMPHASIS, HEADING, DESCRIPTION, KEYWORDS, AUTHOR -> {
                    int n = flagged[flagIndex(PRE[i])];
                    lo = (double) n / k;
                    hi = (double) (n + unknown) / k;
                }
                case TITLE_EXACTNESS -> {
                    int n = flagged[0];
                    lo = Math.min(1.0, n / wit);
                    hi = Math.min(1.0, (n + unknown) / wit);
                }
                case HIT_COUNT -> {
                    lo = norm(i, Math.log1p(hits));
                    hi = 1;
                }
                case TERM_FREQUENCY -> {
                    lo = norm(i, tf / k);
                    hi = 1;
                }
                case POSITION -> {
                    lo = 0;
                    hi = 1.0 / (1 + pos / k / 10.0);
                }
                case BM25 -> {
                    lo = bm25Max <= 0 ? 0 : norm(i, bm25Known / bm25Max);
                    hi = bm25Max <= 0 ? 0 : norm(i, bm25Best / bm25Max);
                }
                case WORD_DISTANCE -> {
                    lo = 0;
                    hi = 1;
                }
                default -> {
                    // the document's own factors: every posting of the document carries the same values
                    lo = norm(i, doc[i]);
                    hi = lo;
                }
            }
            total += coef[i] > 0 ? coef[i] * hi : coef[i] * lo;
        }
        return total + linkRankCoef * linkRank.rank(page.hostHash()) + feedbackCoef * feedback.applyAsDouble(page);
    }

    /** The posting flags of the share factors, in {@link #flagIndex} order. */
    private static final int[] FLAG_BITS = {Posting.IN_TITLE, Posting.IN_URL, Posting.IN_ANCHOR, Posting.IN_EMPHASIS,
            Posting.IN_HEADING, Posting.IN_DESCRIPTION, Posting.IN_KEYWORDS, Posting.IN_AUTHOR};

    /** The place of a share factor's flag in {@link #FLAG_BITS} and {@link #upperBound}'s counts. */
    private static int flagIndex(Factor f) {
        return switch (f) {
            case TITLE -> 0;
            case URL -> 1;
            case ANCHOR -> 2;
            case EMPHASIS -> 3;
            case HEADING -> 4;
            case DESCRIPTION -> 5;
            case KEYWORDS -> 6;
            case AUTHOR -> 7;
            default -> throw new IllegalArgumentException(f + " is not a share of terms");
        };
    }

    public Explanation explain(Scored s) {
        Map<String, Explanation.Part> parts = new LinkedHashMap<>();
        double total = 0;
        for (int i = 0; i < PRE.length; i++) {
            double n = norm(i, s.raw[i]);
            double c = coef[i] * n;
            total += c;
            parts.put(PRE[i].key(), new Explanation.Part(s.raw[i], n, coef[i], c));
        }
        double lr = profile.coefficient(Factor.LINK_RANK) * s.linkRank;
        double fb = profile.coefficient(Factor.FEEDBACK) * s.feedback;
        parts.put(Factor.LINK_RANK.key(), new Explanation.Part(s.linkRank, s.linkRank,
                profile.coefficient(Factor.LINK_RANK), lr));
        parts.put(Factor.FEEDBACK.key(), new Explanation.Part(s.feedback, s.feedback,
                profile.coefficient(Factor.FEEDBACK), fb));
        return new Explanation(total + lr + fb, parts);
    }

    /** Best first; ties broken by URL hash so the order is deterministic. */
    public Comparator<Scored> order() {
        return Comparator.comparingDouble(this::score).reversed().thenComparing(Scored::url);
    }

    /** Every candidate added, best first. */
    public List<Scored> ranked() {
        Map<Scored, Double> scores = new IdentityHashMap<>();
        for (Scored s : all) scores.put(s, score(s));
        List<Scored> out = new ArrayList<>(all);
        out.sort(Comparator.<Scored>comparingDouble(scores::get).reversed().thenComparing(Scored::url));
        return out;
    }

    double[] features(Candidate c) {
        return features(c.url(), c.postings());
    }

    /** The raw pre-ranking features of a page with these postings (one per query term, in term order). */
    private double[] features(UrlHash page, List<Posting> ps) {
        int k = ps.size();
        Posting any = ps.get(0);
        double[] f = new double[PRE.length];
        int title = 0, url = 0, anchor = 0, emph = 0, heading = 0, descr = 0, keywords = 0, author = 0;
        long hits = 0;
        double tf = 0;
        double pos = 0;
        double bm25 = 0;
        double bm25Max = 0;
        double dl = Math.max(1, any.wordsInText());
        double avg = stats.averageLength();
        for (int t = 0; t < k; t++) {
            Posting p = ps.get(t);
            if (p.has(Posting.IN_TITLE)) title++;
            if (p.has(Posting.IN_URL)) url++;
            if (p.has(Posting.IN_ANCHOR)) anchor++;
            if (p.has(Posting.IN_EMPHASIS)) emph++;
            if (p.has(Posting.IN_HEADING)) heading++;
            if (p.has(Posting.IN_DESCRIPTION)) descr++;
            if (p.has(Posting.IN_KEYWORDS)) keywords++;
            if (p.has(Posting.IN_AUTHOR)) author++;
            hits += p.hitCount();
            tf += (double) p.hitCount() / (dl + 1);
            pos += p.firstPosition();
            double h = p.hitCount();
            double idf = idfs.length == 0 ? 0 : idfs[Math.min(t, idfs.length - 1)];
            bm25 += idf * h * (K1 + 1) / (h + K1 * (1 - B + B * dl / avg));
            bm25Max += idf * (K1 + 1);
        }
        for (int i = 0; i < PRE.length; i++) {
            f[i] = switch (PRE[i]) {
                case TITLE -> (double) title / k;
                case TITLE_EXACTNESS -> Math.min(1.0, (double) title / Math.max(1, any.wordsInTitle()));
                case URL -> (double) url / k;
                case ANCHOR -> (double) anchor / k;
                case EMPHASIS -> (double) emph / k;
                case HEADING -> (double) heading / k;
                case DESCRIPTION -> (double) descr / k;
                case KEYWORDS -> (double) keywords / k;
                case AUTHOR -> (double) author / k;
                case DOMAIN_LENGTH, URL_COMPONENTS, URL_LENGTH, DATE, WORDS_IN_TITLE, WORDS_IN_TEXT, LINKS_LOCAL,
                        LINKS_OTHER -> ownFeature(PRE[i], page, any);
                case HIT_COUNT -> Math.log1p(hits);
                case TERM_FREQUENCY -> tf / k;
                case POSITION -> 1.0 / (1 + pos / k / 10.0);
                case WORD_DISTANCE -> 1.0 / (1 + wordDistance(ps));
                case LANGUAGE -> !preferredLanguage.isEmpty() && preferredLanguage.equals(any.language()) ? 1 : 0;
                case MEDIA -> media(ps);
                case BM25 -> bm25Max <= 0 ? 0 : bm25 / bm25Max;
                default -> 0;
            };
        }
        return f;
    }

    private double media(List<Posting> ps) {
        Posting p = ps.get(0);
        return switch (contentDomain) {
            case "image" -> p.has(Posting.HAS_IMAGE) ? 1 : 0;
            case "all" -> 1;
            default -> p.doctype() == 'h' || p.doctype() == 't' ? 1 : 0;
        };
    }

    /** Mean over consecutive term pairs of the smallest gap between their positions (0 = adjacent). */
    static double wordDistance(List<Posting> ps) {
        if (ps.size() < 2) return 0;
        double sum = 0;
        for (int i = 1; i < ps.size(); i++) {
            int[] a = ps.get(i - 1).positions();
            int[] b = ps.get(i).positions();
            if (a.length == 0 || b.length == 0) {
                sum += 50;
                continue;
            }
            int best = Integer.MAX_VALUE;
            int x = 0, y = 0;
            while (x < a.length && y < b.length) {
                best = Math.min(best, Math.abs(a[x] - b[y]));
                if (a[x] < b[y]) x++;
                else y++;
            }
            sum += Math.max(0, Math.min(best, 50) - 1);
        }
        return sum / (ps.size() - 1);
    }
}
