package org.peerdex.actors.parse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The detector on real text: the Universal Declaration of Human Rights in each pinned language (test resources
 * udhr/, see its README for the source).
 */
class LanguageDetectorTest {
    /** The paragraphs of articles 1-12 in the language {@code code}. */
    static List<String> udhr(String code) {
        try (InputStream in = LanguageDetectorTest.class.getResourceAsStream("/udhr/" + code + ".txt")) {
            if (in == null) throw new IllegalStateException("no test text for " + code);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().filter(l -> !l.isBlank()).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void everyPinnedLanguageIsRecognisedInAPassageOfRealText() {
        assertTrue(LanguageDetector.LANGUAGES.size() >= 20, LanguageDetector.LANGUAGES.toString());
        List<String> wrong = new ArrayList<>();
        for (String code : LanguageDetector.LANGUAGES) {
            String passage = String.join(" ", udhr(code).subList(0, 4));
            String got = LanguageDetector.detect(passage);
            if (!got.equals(code)) wrong.add(code + " -> '" + got + "'");
        }
        assertTrue(wrong.isEmpty(), "passages named wrongly: " + wrong);
    }

    @Test
    void everyPinnedLanguageIsRecognisedOnAnUnlabelledPage() {
        HtmlDocumentParser parser = new HtmlDocumentParser();
        List<String> wrong = new ArrayList<>();
        for (String code : LanguageDetector.LANGUAGES) {
            List<String> paras = udhr(code);
            StringBuilder html = new StringBuilder("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>")
                    .append(paras.get(0), 0, Math.min(60, paras.get(0).length()))
                    .append("</title></head><body><nav><a href=\"/\">Home</a> | <a href=\"/about\">About</a></nav>");
            for (String p : paras) html.append("<p>").append(p).append("</p>\n");
            html.append("<footer>© 2026 · <a href=\"mailto:info@example.org\">info@example.org</a></footer>")
                    .append("</body></html>");
            ParsedDocument d = parser.parse("http://example.org/" + code + "/udhr.html",
                    html.toString().getBytes(StandardCharsets.UTF_8), "text/html");
            if (!d.language().equals(code)) wrong.add(code + " -> '" + d.language() + "'");
        }
        assertTrue(wrong.isEmpty(), "pages named wrongly: " + wrong);
    }

    /**
     * A single paragraph (one sentence to a few) is harder; the detector may say "" when unsure but should rarely
     * name the wrong language, since a wrong code travels with every posting of the page.
     */
    @Test
    void singleParagraphsAreRecognisedOrLeftUnknownAndRarelyWrong() {
        int right = 0;
        int unknown = 0;
        List<String> wrong = new ArrayList<>();
        for (String code : LanguageDetector.LANGUAGES) {
            for (String p : udhr(code)) {
                String got = LanguageDetector.detect(p);
                if (got.equals(code)) right++;
                else if (got.isEmpty()) unknown++;
                else wrong.add(code + " -> " + got + ": " + p.substring(0, Math.min(50, p.length())));
            }
        }
        int all = right + unknown + wrong.size();
        System.out.printf(Locale.ROOT, "language of %d single paragraphs in %d languages: %d right, %d unknown,"
                + " %d wrong %s%n", all, LanguageDetector.LANGUAGES.size(), right, unknown, wrong.size(), wrong);
        assertTrue(wrong.size() * 100 <= all, wrong.size() + " of " + all + " paragraphs named wrongly: " + wrong);
        assertTrue(right * 100 >= all * 90, "only " + right + " of " + all + " paragraphs named");
    }

    /**
     * The Latin-script shortcut answers exactly as Lingua on real text: every UDHR paragraph, two- and
     * twelve-paragraph passages, and passages that switch language halfway (close calls), in all 37 languages; it
     * answers most Latin-script texts itself and leaves every other script to Lingua.
     */
    @Test
    void theLatinScriptShortcutAnswersAsLinguaDoes() {
        List<String> latin = LanguageDetector.LatinTrigrams.CODES;
        List<String> differ = new ArrayList<>();
        int latinTexts = 0;
        int answered = 0;
        for (int i = 0; i < LanguageDetector.LANGUAGES.size(); i++) {
            String code = LanguageDetector.LANGUAGES.get(i);
            List<String> paras = udhr(code);
            List<String> other = udhr(LanguageDetector.LANGUAGES.get((i + 1) % LanguageDetector.LANGUAGES.size()));
            List<String> texts = new ArrayList<>(paras);
            texts.add(String.join(" ", paras.subList(0, 2)));
            texts.add(String.join(" ", paras));
            texts.add(paras.get(0) + " " + other.get(0));
            texts.add(paras.get(1) + " " + paras.get(2) + " " + other.get(1));
            for (String t : texts) {
                String lingua = LanguageDetector.detectByLingua(t);
                String shortcut = LanguageDetector.detectByShortcut(t);
                if (latin.contains(code)) latinTexts++;
                if (shortcut == null) continue;
                answered++;
                if (!latin.contains(code)) differ.add(code + " taken by the shortcut: " + t.substring(0, 40));
                if (!shortcut.equals(lingua)) {
                    differ.add(code + ": Lingua '" + lingua + "', shortcut '" + shortcut + "': " + t.substring(0, 40));
                }
            }
        }
        System.out.printf(Locale.ROOT, "Latin-script shortcut: answered %d of %d Latin-script texts%n", answered,
                latinTexts);
        assertTrue(differ.isEmpty(), "shortcut and Lingua differ: " + differ);
        assertTrue(answered * 100 >= latinTexts * 95, "shortcut answered only " + answered + " of " + latinTexts);
    }

    /**
     * The shortcut repeats Lingua's clean-up and word split, so it must agree on text as the web serves it too: upper
     * case, digits, punctuation, symbols, no-break and other spaces, combining accents, Turkish dotted capitals and
     * words run together, mixed into real paragraphs of every Latin-script language.
     */
    @Test
    void theLatinScriptShortcutAgreesWithLinguaOnNoisyText() {
        String[] noise = {"2026", "3,14", " \u00a0", "\u2003", "\t\n ", "(", ")", "\u00ab", "\u00bb", "\u2014", "&",
            "+", "=", "$", "\u20ac", "\u00a9", "\u00b0", "\u0301", "\u0308", "\u0130", "I\u0307", "\u00bf", "\u00a1",
            "\u00df", "\u0142", "\u0111", "\u00e7", "\u00f8", "\u01b0", "_", "-", "'", "\"", "\u00d7", "\u2122",
            "\u00aa"};
        Random random = new Random(42);
        List<String> differ = new ArrayList<>();
        int answered = 0;
        int texts = 0;
        for (String code : LanguageDetector.LatinTrigrams.CODES) {
            for (String p : udhr(code)) {
                StringBuilder b = new StringBuilder(random.nextBoolean() ? p : p.toUpperCase(Locale.ROOT));
                for (int i = 0; i < 1 + b.length() / 15; i++) {
                    int at = random.nextInt(b.length() + 1);
                    if (random.nextInt(4) == 0 && at < b.length() && b.charAt(at) == ' ') b.deleteCharAt(at);
                    else b.insert(at, noise[random.nextInt(noise.length)]);
                }
                String t = b.toString();
                String lingua = LanguageDetector.detectByLingua(t);
                String shortcut = LanguageDetector.detectByShortcut(t);
                texts++;
                if (shortcut == null) continue;
                answered++;
                if (!shortcut.equals(lingua)) {
                    differ.add(code + ": Lingua '" + lingua + "', shortcut '" + shortcut + "': " + t);
                }
            }
        }
        System.out.printf(Locale.ROOT, "Latin-script shortcut on noisy text: answered %d of %d%n", answered, texts);
        assertTrue(differ.isEmpty(), "shortcut and Lingua differ: " + differ);
        assertTrue(answered * 100 >= texts * 90, "shortcut answered only " + answered + " of " + texts);
    }

    /** Where the answer must be "", the shortcut says "" or leaves the text to Lingua: it never names a language. */
    @Test
    void theLatinScriptShortcutNamesNoLanguageForSharedWords() {
        for (String s : List.of("Hotel Restaurant Pizza Taxi Camping Parking Bar Golf Sauna",
                "Internet Computer Software Hardware Server Online Download Video Radio",
                "Mozart Beethoven Bach Chopin Vivaldi Haydn Schubert Brahms", "Home | Login | Search",
                "https://example.org/index.html?id=42 info@example.org www.example.org/a/b/c/d/e/f")) {
            String shortcut = LanguageDetector.detectByShortcut(s);
            assertTrue(shortcut == null || shortcut.isEmpty(), s + " -> " + shortcut);
            assertEquals("", LanguageDetector.detect(s), s);
        }
    }

    @Test
    void shortOrLanguagelessTextIsUnknown() {
        for (String s : List.of("", "   ", "OK", "Home | Login | Search", "Berlin 2026", "iPhone 15 Pro Max 256GB",
                "https://example.org/index.html?id=42", "Maria Garcia", "404 Not Found", "© 2026 ACME GmbH",
                "3.14159 2.71828 1.41421", "PDF · ZIP · CSV · JSON")) {
            assertEquals("", LanguageDetector.detect(s), s);
        }
    }

    /** Long enough to be read, but made of words many languages share: no language is clearly ahead. */
    @Test
    void wordsSharedByManyLanguagesAreUnknown() {
        for (String s : List.of("Hotel Restaurant Pizza Taxi Camping Parking Bar Golf Sauna",
                "Internet Computer Software Hardware Server Online Download Video Radio",
                "Mozart Beethoven Bach Chopin Vivaldi Haydn Schubert Brahms")) {
            assertEquals("", LanguageDetector.detect(s), s);
        }
    }

    @Test
    void aLanguageOutsideThePinnedSetIsUnknownNotTheNearestPinnedOne() {
        for (String code : List.of("ka", "hy")) {
            String passage = String.join(" ", udhr("outside/" + code));
            assertEquals("", LanguageDetector.detect(passage), code);
        }
    }

    @Test
    void theCodesAreIsoTwoLetterCodesInAFixedOrder() {
        for (String code : LanguageDetector.LANGUAGES) assertTrue(code.matches("[a-z]{2}"), code);
        List<String> sorted = LanguageDetector.LANGUAGES.stream().sorted().distinct().toList();
        assertEquals(sorted, LanguageDetector.LANGUAGES, "kept sorted and without repeats");
    }

    @Test
    void tagsAreReducedToTheirPrimarySubtag() {
        assertEquals("en", LanguageDetector.normalizeTag("en-US"));
        assertEquals("pt", LanguageDetector.normalizeTag(" PT_br "));
        assertEquals("", LanguageDetector.normalizeTag("x"));
        assertEquals("", LanguageDetector.normalizeTag(null));
    }
}
