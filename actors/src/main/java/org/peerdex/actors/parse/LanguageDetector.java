package org.peerdex.actors.parse;

import com.github.pemistahl.lingua.api.IsoCode639_1;
import com.github.pemistahl.lingua.api.Language;
import com.github.pemistahl.lingua.api.LanguageDetectorBuilder;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The language of a text, by Lingua (n-gram models, low-accuracy mode) restricted to {@link #LANGUAGES}. Returns an
 * ISO 639-1 code, or "" when the text is too short or no language is clearly ahead: a wrong code would put a page
 * under the wrong {@code lang:} filter on every peer that receives its postings.
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
     * on CPU-bound work, and the threads waiting here park once instead of contending per n-gram.
     */
    private static final java.util.concurrent.Semaphore SLOTS =
            new java.util.concurrent.Semaphore(Math.max(1, Runtime.getRuntime().availableProcessors()));

    /** ISO 639-1 code of the text's language, or "" if it is too short or too close to call. */
    public static String detect(String text) {
        if (text == null) return "";
        String t = text.length() > MAX_CHARS ? text.substring(0, MAX_CHARS) : text;
        t = ADDRESSES.matcher(t).replaceAll(" "); // URLs and e-mail addresses are in no language
        if (letters(t) < MIN_LETTERS) return "";
        Language l;
        SLOTS.acquireUninterruptibly();
        try {
            l = Models.DETECTOR.detectLanguageOf(t);
        } finally {
            SLOTS.release();
        }
        return l == Language.UNKNOWN ? "" : l.getIsoCode639_1().name().toLowerCase(Locale.ROOT);
    }

    private static int letters(String s) {
        int n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            // one ideograph or syllable says as much as a few Latin letters
            if (Character.isIdeographic(c) || Character.UnicodeBlock.of(c) == Character.UnicodeBlock.HANGUL_SYLLABLES) {
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
