package org.peerdex.actors.parse;

import com.github.pemistahl.lingua.api.IsoCode639_1;
import com.github.pemistahl.lingua.api.Language;
import com.github.pemistahl.lingua.api.LanguageDetectorBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.concurrent.Semaphore;
import java.util.regex.Pattern;

/**
 * The language of a text, by Lingua (n-gram models, low-accuracy mode) restricted to {@link #LANGUAGES}. Returns an
 * ISO 639-1 code, or "" when the text is too short or no language is clearly ahead: a wrong code would put a page
 * under the wrong {@code lang:} filter on every peer that receives its postings. Latin-script text is scored by
 * {@link LatinTrigrams}, which gives Lingua's answer at a fraction of its cost; other text goes to Lingua itself.
 */
public final class LanguageDetector {
    /**
     * The codes a peer may put in a posting from detection, the same on every peer: peers compare these codes, so
     * the set is part of the protocol (docs/protocol.md). Changing it changes what {@code lang:} finds across the
     * network; add a language only with a protocol version. Declared languages ({@code <html lang>}) are kept as
     * the page says and may lie outside it.
     */
    public static final List<String> LANGUAGES = List.of(
            "ar", "bg", "ca", "cs", "da", "de", "el", "en", "es", "et", "fa", "fi", "fr", "he", "hi", "hr", "hu", "id",
            "it", "ja", "ko", "lt", "lv", "nb", "nl", "pl", "pt", "ro", "ru", "sk", "sl", "sv", "th", "tr", "uk", "vi",
            "zh");
    /** Fewer letters than this and the answer is "": a title or a menu says too little. */
    static final int MIN_LETTERS = 24;
    /**
     * Only the first this many characters are read: Lingua's cost grows with the text, and past a few hundred
     * characters its answer no longer changes (its authors: accuracy drops below 120 characters only).
     */
    static final int MAX_CHARS = 1_000;
    /**
     * How far ahead (0..1) the likeliest language must be of the next one; closer calls are "". Lingua's own
     * default is 0, which always names a language.
     */
    static final double MIN_RELATIVE_DISTANCE = 0.1;

    private static final Pattern ADDRESSES = Pattern.compile("\\S*(?://|@|www\\.)\\S*");

    private LanguageDetector() {}

    /** Built on first use: it loads the models of {@link #LANGUAGES} (measured in docs/protocol.md). */
    private static final class Models {
        static final com.github.pemistahl.lingua.api.LanguageDetector DETECTOR = LanguageDetectorBuilder
                .fromIsoCodes639_1(LANGUAGES.stream().map(c -> IsoCode639_1.valueOf(c.toUpperCase(Locale.ROOT)))
                        .toArray(IsoCode639_1[]::new))
                .withLowAccuracyMode()
                .withMinimumRelativeDistance(MIN_RELATIVE_DISTANCE)
                .withPreloadedLanguageModels()
                .build();
    }

    /**
     * Detections running at once, at most one a core. Lingua 1.2 enters one shared monitor for every n-gram it looks
     * up, so 32 fetch threads detecting at once spent most of that time queued on the monitor (the wide-crawl
     * profile: 584 s of monitor waits in a 276 s crawl, docs/operations.md); more detections than cores gain nothing
     * on CPU-bound work, and the threads waiting here park once instead of contending per n-gram. The Latin-script
     * shortcut takes no slot: it reads immutable tables.
     */
    private static final Semaphore SLOTS =
            new Semaphore(Math.max(1, Runtime.getRuntime().availableProcessors()));

    /** ISO 639-1 code of the text's language, or "" if it is too short or too close to call. */
    public static String detect(String text) {
        String t = prepare(text);
        if (t == null) return "";
        String quick = LatinTrigrams.detect(t);
        return quick != null ? quick : lingua(t);
    }

    /** The text as detection reads it (cut, addresses removed), or null when it has too few letters to read. */
    private static String prepare(String text) {
        if (text == null) return null;
        String t = text.length() > MAX_CHARS ? text.substring(0, MAX_CHARS) : text;
        t = ADDRESSES.matcher(t).replaceAll(" "); // URLs and e-mail addresses are in no language
        return letters(t) < MIN_LETTERS ? null : t;
    }

    /** Lingua's own answer for the text, never the Latin-script shortcut: what the shortcut must agree with. */
    static String detectByLingua(String text) {
        String t = prepare(text);
        return t == null ? "" : lingua(t);
    }

    /** The Latin-script shortcut's answer, or null where it leaves the text to Lingua. */
    static String detectByShortcut(String text) {
        String t = prepare(text);
        return t == null ? "" : LatinTrigrams.detect(t);
    }

    private static String lingua(String t) {
        Language l;
        SLOTS.acquireUninterruptibly();
        try {
            l = Models.DETECTOR.detectLanguageOf(t);
        } finally {
            SLOTS.release();
        }
        return l == Language.UNKNOWN ? "" : l.getIsoCode639_1().name().toLowerCase(Locale.ROOT);
    }

    /**
     * Lingua's low-accuracy answer for text in the Latin script, from Lingua's own models but with one table lookup
     * a trigram for all 25 Latin-script languages, where Lingua looks each trigram up once a language, behind one
     * shared monitor (an import profile put 59% of indexing CPU in Lingua, most of it there). It repeats Lingua
     * 1.2.2's steps for such text: the clean-up (lower case, no punctuation or digits), the two character rules
     * (characters unique to a language decide; characters a few languages share narrow the candidates), then the sum
     * over the text's distinct all-letter trigrams of each candidate's log probability, backing off to the bigram and
     * unigram models where the jar has them (the shaded jars keep only trigrams; then, as in Lingua, a trigram a
     * language lacks adds nothing). Sums differ from Lingua's only by the order of float additions, so a lead within
     * {@link #GUARD} of {@link LanguageDetector#MIN_RELATIVE_DISTANCE} is left to Lingua, as is text with a letter of
     * another script. A Lingua upgrade must keep LanguageDetectorTest's agreement tests green.
     */
    static final class LatinTrigrams {
        /** The pinned languages written in the Latin script: the candidates Lingua keeps for Latin text. */
        static final List<String> CODES = List.of("ca", "cs", "da", "de", "en", "es", "et", "fi", "fr", "hr", "hu",
                "id", "it", "lt", "lv", "nb", "nl", "pl", "pt", "ro", "sk", "sl", "sv", "tr", "vi");
        /** How close to the threshold a lead is left to Lingua; float sums in another order differ by ~1e-6. */
        static final double GUARD = 0.002;
        private static final int ALL = (1 << CODES.size()) - 1;

        private LatinTrigrams() {}

        /** Loaded on first use from Lingua's model files; a null table (unreadable, no trigrams) disables this. */
        private static final class Tables {
            static final NgramTable TRIGRAMS = NgramTable.load("trigrams", 3);
            static final NgramTable BIGRAMS = NgramTable.load("bigrams", 2);
            static final NgramTable UNIGRAMS = NgramTable.load("unigrams", 1);
        }

        /** The answer Lingua would give, or null when the text is not one this shortcut may answer. */
        static String detect(String text) {
            NgramTable tri = Tables.TRIGRAMS;
            if (tri == null || Tables.BIGRAMS == null || Tables.UNIGRAMS == null) return null;
            String lower = text.toLowerCase(Locale.ROOT);
            int from = 0;
            int to = lower.length();
            while (from < to && isTrimmed(lower.charAt(from))) from++;
            while (to > from && isTrimmed(lower.charAt(to - 1))) to--;
            // Lingua's clean-up: punctuation and digits removed, then each run of \s one space
            char[] c = new char[to - from];
            int n = 0;
            boolean space = false;
            for (int i = from; i < to; i++) {
                char ch = lower.charAt(i);
                if (Character.isSurrogate(ch)) return null;
                int type = Character.getType(ch);
                if (isPunctuation(type) || isNumber(type)) continue;
                if (ch == ' ' || ch == '\t' || ch == '\n' || ch == 0x0B || ch == '\f' || ch == '\r') {
                    if (!space) c[n++] = ' ';
                    space = true;
                    continue;
                }
                space = false;
                Character.UnicodeScript script = ch <= 0x7F ? null : Character.UnicodeScript.of(ch); // ASCII: Latin
                if (script != null && script != Character.UnicodeScript.LATIN
                        && script != Character.UnicodeScript.COMMON && script != Character.UnicodeScript.INHERITED) {
                    return null; // another script: Lingua's rules and other candidates apply
                }
                c[n++] = ch;
            }
            // Lingua's two character rules, on words split at spaces: a word votes for the language it has the most
            // characters unique to, and those votes decide when fewer than half the words have none; a language
            // that at least half as many (word, character) pairs as there are words point to, through characters
            // few languages share, keeps the candidates to those languages
            int words = 0;
            int latinWords = 0;
            int unknownWords = 0;
            int[] votes = new int[CODES.size()];
            int[] shared = new int[CODES.size()];
            int[] inWord = new int[CODES.size()];
            for (int i = 0, start = -1; i <= n; i++) {
                if (i < n && c[i] != ' ') {
                    if (start < 0) start = i;
                    continue;
                }
                if (start < 0) continue;
                words++;
                boolean latin = true;
                int touched = 0;
                for (int j = start; j < i; j++) {
                    char ch = c[j];
                    if (ch <= 0x7F) {
                        if (!Character.isLetter(ch)) latin = false;
                        continue;
                    }
                    if (Character.UnicodeScript.of(ch) != Character.UnicodeScript.LATIN) {
                        latin = false;
                        continue;
                    }
                    int unique = UNIQUE.getOrDefault(ch, 0);
                    for (int m = unique; m != 0; m &= m - 1) inWord[Integer.numberOfTrailingZeros(m)]++;
                    touched |= unique;
                    int sharedBy = SHARED.getOrDefault(ch, 0);
                    if (sharedBy != 0 && firstIn(c, start, j, ch)) { // Lingua: the word contains it
                        for (int m = sharedBy; m != 0; m &= m - 1) shared[Integer.numberOfTrailingZeros(m)]++;
                    }
                }
                if (latin) latinWords++;
                if (touched == 0) {
                    unknownWords++;
                } else {
                    int top = -1;
                    int next = 0;
                    for (int m = touched; m != 0; m &= m - 1) {
                        int l = Integer.numberOfTrailingZeros(m);
                        if (top < 0 || inWord[l] > inWord[top]) {
                            next = top < 0 ? 0 : inWord[top];
                            top = l;
                        } else if (inWord[l] > next) {
                            next = inWord[l];
                        }
                    }
                    if (inWord[top] > next) votes[top]++;
                    else unknownWords++;
                    for (int m = touched; m != 0; m &= m - 1) inWord[Integer.numberOfTrailingZeros(m)] = 0;
                }
                start = -1;
            }
            if (latinWords == 0) return null; // no Latin word: Lingua would keep every language as a candidate
            int topVotes = unknownWords * 2 < words ? 0 : unknownWords; // Lingua drops "unknown" below half
            int topVoted = -1; // -1: "unknown" leads
            boolean tie = false;
            for (int l = 0; l < votes.length; l++) {
                if (votes[l] == 0) continue;
                if (votes[l] > topVotes) {
                    topVotes = votes[l];
                    topVoted = l;
                    tie = false;
                } else if (votes[l] == topVotes) {
                    tie = true;
                }
            }
            if (topVoted >= 0 && !tie) return CODES.get(topVoted);
            int candidates = 0;
            for (int l = 0; l < shared.length; l++) if (shared[l] >= words / 2.0) candidates |= 1 << l;
            if (candidates == 0) candidates = ALL;
            if (Integer.bitCount(candidates) == 1) return CODES.get(Integer.numberOfTrailingZeros(candidates));

            long[] keys = new long[Math.max(0, n - 2)];
            int k = 0;
            for (int i = 0; i + 2 < n; i++) {
                if (Character.isLetter(c[i]) && Character.isLetter(c[i + 1]) && Character.isLetter(c[i + 2])) {
                    keys[k++] = (long) c[i] << 32 | (long) c[i + 1] << 16 | c[i + 2];
                }
            }
            Arrays.sort(keys, 0, k);
            float[] sums = new float[CODES.size()];
            for (int i = 0; i < k; i++) {
                if (i > 0 && keys[i] == keys[i - 1]) continue; // Lingua counts each distinct trigram once
                int found = tri.add(keys[i], sums, ALL & ~candidates);
                if (found != ALL) found = Tables.BIGRAMS.add(keys[i] >>> 16, sums, found);
                if (found != ALL) Tables.UNIGRAMS.add(keys[i] >>> 32, sums, found);
            }
            int best = -1;
            int second = -1;
            for (int l = 0; l < sums.length; l++) {
                // Lingua scores only the candidates, and drops a language no trigram was found for
                if ((candidates & 1 << l) == 0 || !(sums[l] < 0)) continue;
                if (best < 0 || sums[l] > sums[best]) {
                    second = best;
                    best = l;
                } else if (second < 0 || sums[l] > sums[second]) {
                    second = l;
                }
            }
            if (best < 0) return "";
            if (second < 0) return CODES.get(best);
            double lead = 1.0 - (double) (sums[best] / sums[second]); // Lingua's confidences, as float ratios
            if (Math.abs(lead - MIN_RELATIVE_DISTANCE) < GUARD) return null;
            return lead < MIN_RELATIVE_DISTANCE ? "" : CODES.get(best);
        }

        /** Whether {@code ch} is not among {@code c[from..to)}. */
        private static boolean firstIn(char[] c, int from, int to, char ch) {
            for (int i = from; i < to; i++) if (c[i] == ch) return false;
            return true;
        }

        /**
         * Lingua 1.2.2's characters unique to one language ({@code Language.uniqueCharacters}) among {@link #CODES}:
         * character to the bit of its language.
         */
        private static final Map<Character, Integer> UNIQUE = masks(new String[][] {
            {"ca", "Ïï"}, {"cs", "ĚěŘřŮů"}, {"de", "ß"}, {"es", "¿¡"}, {"hu", "ŐőŰű"}, {"lt", "ĖėĮįŲų"},
            {"lv", "ĢģĶķĻļŅņ"}, {"pl", "ŁłŃńŚśŹź"}, {"ro", "Țţ"}, {"sk", "ĹĺĽľŔŕ"},
            {"vi", "ẰằẦầẲẳẨẩẴẵẪẫẮắẤấẠạẶặẬậỀềẺẻỂểẼẽỄễẾếỆệỈỉĨĩỊịƠơỒồỜờỎỏỔổỞởỖỗỠỡỐốỚớỘộỢợƯưỪừỦủỬửŨũỮữỨứỤụỰựỲỳỶỷỸỹỴỵ"}});

        /**
         * Lingua 1.2.2's Latin characters shared by a few languages ({@code Constant.CHARS_TO_LANGUAGES_MAPPING},
         * languages as written there; those outside {@link #CODES} are dropped, as Lingua drops non-candidates):
         * character to the bits of its languages.
         */
        private static final Map<Character, Integer> SHARED = masks(new String[][] {
            {"pt vi", "Ãã"}, {"lt pl", "ĄąĘę"}, {"pl ro", "Żż"}, {"fr ro", "Îî"}, {"eu es", "Ññ"},
            {"cs sk", "ŇňŤť"}, {"ro vi", "Ăă"}, {"az tr", "İıĞğ"}, {"vi yo", "ẸẹỌọ"}, {"is tr", "ÐðÞþ"},
            {"fr hu", "Ûû"}, {"mi yo", "Ōō"}, {"lv mi yo", "ĀāĒēĪī"}, {"az ro tr", "Şş"}, {"cs ro sk", "Ďď"},
            {"bs hr pl", "Ćć"}, {"bs hr vi", "Đđ"}, {"it vi yo", "Ìì"}, {"nb da nn", "Øø"},
            {"lv lt mi yo", "Ūū"}, {"af sq nl fr", "Ëë"}, {"fr it vi yo", "ÈèÙù"}, {"af fr pt vi", "Êê"},
            {"et hu pt vi", "Õõ"}, {"fr pt sk vi", "Ôô"}, {"ca it vi yo", "Òò"}, {"nb da is nn", "Ææ"},
            {"nb da nn sv", "Åå"}, {"cs is sk tr vi", "Ýý"}, {"et fi de sk sv", "Ää"},
            {"ca fr it pt vi", "Àà"}, {"fr pt ro tr vi", "Ââ"}, {"az ca et de hu es tr", "Üü"},
            {"bs cs hr lv lt sk sl", "ČčŠšŽž"}, {"sq az eu ca fr pt tr", "Çç"},
            {"az et fi de hu is sv tr", "Öö"}, {"ca hu is ga pl pt sk es vi yo", "Óó"},
            {"ca cs is ga hu pt sk es vi yo", "ÁáÍíÚú"}, {"ca cs fr hu is ga it pt sk es vi yo", "Éé"}});

        private static Map<Character, Integer> masks(String[][] table) {
            Map<Character, Integer> masks = new HashMap<>();
            for (String[] row : table) {
                int mask = 0;
                for (String code : row[0].split(" ")) {
                    if (CODES.contains(code)) mask |= 1 << CODES.indexOf(code);
                }
                for (char ch : row[1].toCharArray()) masks.merge(ch, mask, (a, b) -> a | b);
            }
            return Map.copyOf(masks);
        }

        /** Kotlin's trim(): Java whitespace and Unicode space separators. */
        private static boolean isTrimmed(char ch) {
            return Character.isWhitespace(ch) || Character.isSpaceChar(ch);
        }

        private static boolean isPunctuation(int type) {
            return type == Character.CONNECTOR_PUNCTUATION || type == Character.DASH_PUNCTUATION
                    || type == Character.START_PUNCTUATION || type == Character.END_PUNCTUATION
                    || type == Character.INITIAL_QUOTE_PUNCTUATION || type == Character.FINAL_QUOTE_PUNCTUATION
                    || type == Character.OTHER_PUNCTUATION;
        }

        private static boolean isNumber(int type) {
            return type == Character.DECIMAL_DIGIT_NUMBER || type == Character.LETTER_NUMBER
                    || type == Character.OTHER_NUMBER;
        }
    }

    /**
     * One n-gram order of the Latin-script models: n-gram (up to three chars packed into a long) to the log
     * probabilities of the languages whose model has it, in language order.
     */
    private static final class NgramTable {
        private final long[] keys; // open addressing; 0 is an empty slot (no n-gram packs to 0)
        private final int[] first;
        private final byte[] count;
        private final byte[] language;
        private final float[] logP;
        private final int shift;

        private NgramTable(long[][] perLanguageKeys, float[][] perLanguageLogP) {
            int total = 0;
            for (long[] k : perLanguageKeys) total += k.length;
            long[] all = new long[total];
            int at = 0;
            for (long[] k : perLanguageKeys) {
                System.arraycopy(k, 0, all, at, k.length);
                at += k.length;
            }
            Arrays.sort(all);
            int distinct = 0;
            for (int i = 0; i < total; i++) if (i == 0 || all[i] != all[i - 1]) distinct++;
            int bits = 2;
            while ((1 << bits) < distinct * 2) bits++;
            shift = 64 - bits;
            keys = new long[1 << bits];
            first = new int[1 << bits];
            count = new byte[1 << bits];
            for (long[] k : perLanguageKeys) {
                for (long key : k) count[insert(key)]++;
            }
            int start = 0;
            for (int s = 0; s < keys.length; s++) {
                first[s] = start;
                start += count[s];
            }
            language = new byte[total];
            logP = new float[total];
            int[] next = first.clone();
            for (int l = 0; l < perLanguageKeys.length; l++) {
                for (int i = 0; i < perLanguageKeys[l].length; i++) {
                    int e = next[slot(perLanguageKeys[l][i])]++;
                    language[e] = (byte) l;
                    logP[e] = perLanguageLogP[l][i];
                }
            }
        }

        private int insert(long key) {
            int s = (int) ((key * 0x9E3779B97F4A7C15L) >>> shift);
            while (keys[s] != 0 && keys[s] != key) s = (s + 1) & (keys.length - 1);
            keys[s] = key;
            return s;
        }

        private int slot(long key) {
            int s = (int) ((key * 0x9E3779B97F4A7C15L) >>> shift);
            while (keys[s] != key) {
                if (keys[s] == 0) return -1;
                s = (s + 1) & (keys.length - 1);
            }
            return s;
        }

        /** Adds the n-gram's log probability to the sum of each language not yet in {@code found}; the new mask. */
        int add(long key, float[] sums, int found) {
            int s = slot(key);
            if (s < 0) return found;
            for (int e = first[s], end = e + count[s]; e < end; e++) {
                int bit = 1 << language[e];
                if ((found & bit) == 0) {
                    sums[language[e]] += logP[e];
                    found |= bit;
                }
            }
            return found;
        }

        /**
         * The {@code name}.json models of {@link LatinTrigrams#CODES} as Lingua reads them (a probability is the
         * float numerator over the denominator; its log as Lingua takes it, in float); a missing file is an empty
         * model, as in Lingua. Null if no trigram model is found at all.
         */
        static NgramTable load(String name, int length) {
            int languages = LatinTrigrams.CODES.size();
            long[][] keys = new long[languages][];
            float[][] logP = new float[languages][];
            int found = 0;
            for (int l = 0; l < languages; l++) {
                String path = "/language-models/" + LatinTrigrams.CODES.get(l) + "/" + name + ".json";
                try (InputStream in = Language.class.getResourceAsStream(path)) {
                    String json = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
                    if (in != null) found++;
                    parse(json, length, l, keys, logP);
                } catch (IOException | RuntimeException e) {
                    return null; // a model we cannot read: Lingua answers every text
                }
            }
            return length == 3 && found < languages ? null : new NgramTable(keys, logP);
        }

        /** Reads {"language":"...","ngrams":{"NUM/DEN":"ngram ngram ...",...}} into keys[l] and logP[l]. */
        private static void parse(String json, int length, int l, long[][] keys, float[][] logP) {
            long[] k = new long[1024];
            float[] p = new float[1024];
            int n = 0;
            int i = json.indexOf("\"ngrams\"");
            if (i >= 0) {
                i = json.indexOf('{', i) + 1;
                int[] pos = {i};
                while (true) {
                    skip(json, pos);
                    if (pos[0] >= json.length() || json.charAt(pos[0]) == '}') break;
                    String fraction = string(json, pos);
                    skip(json, pos);
                    String ngrams = string(json, pos);
                    int slash = fraction.indexOf('/');
                    float probability = Float.parseFloat(fraction.substring(0, slash))
                            / Integer.parseInt(fraction.substring(slash + 1));
                    if (!(probability > 0)) continue;
                    float log = (float) Math.log(probability);
                    for (String g : ngrams.split(" ")) {
                        if (g.length() != length) continue; // beyond the BMP: the shortcut never sees such text
                        long key = 0;
                        for (int j = 0; j < length; j++) key = key << 16 | g.charAt(j);
                        if (n == k.length) {
                            k = Arrays.copyOf(k, n * 2);
                            p = Arrays.copyOf(p, n * 2);
                        }
                        k[n] = key;
                        p[n++] = log;
                    }
                }
            }
            keys[l] = Arrays.copyOf(k, n);
            logP[l] = Arrays.copyOf(p, n);
        }

        /** Moves past white space, commas and colons. */
        private static void skip(String json, int[] pos) {
            while (pos[0] < json.length() && " \t\r\n,:".indexOf(json.charAt(pos[0])) >= 0) pos[0]++;
        }

        private static String string(String json, int[] pos) {
            if (json.charAt(pos[0]) != '"') throw new IllegalArgumentException("a string expected at " + pos[0]);
            StringBuilder b = new StringBuilder();
            int i = pos[0] + 1;
            for (char ch = json.charAt(i); ch != '"'; ch = json.charAt(++i)) {
                if (ch == '\\') {
                    char e = json.charAt(++i);
                    if (e == 'u') {
                        b.append((char) Integer.parseInt(json.substring(i + 1, i + 5), 16));
                        i += 4;
                    } else {
                        b.append(e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e == 'b' ? '\b'
                                : e == 'f' ? '\f' : e);
                    }
                } else {
                    b.append(ch);
                }
            }
            pos[0] = i + 1;
            return b.toString();
        }
    }

    private static int letters(String s) {
        int n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            // one ideograph or syllable says as much as a few Latin letters
            if (Character.isIdeographic(c) || c >= 0xAC00 && c <= 0xD7AF) { // the Hangul Syllables block
                n += 3;
            } else if (Character.isLetter(c)) {
                n++;
            }
        }
        return n;
    }

    /** The primary subtag of a language tag ("en-US" → "en"), lower case; "" if it does not look like one. */
    public static String normalizeTag(String tag) {
        if (tag == null) return "";
        String t = tag.trim().toLowerCase(Locale.ROOT);
        int dash = t.indexOf('-');
        if (dash < 0) dash = t.indexOf('_');
        if (dash > 0) t = t.substring(0, dash);
        return t.matches("[a-z]{2,3}") ? t : "";
    }
}
