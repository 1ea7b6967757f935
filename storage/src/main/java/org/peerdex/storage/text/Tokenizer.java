package org.peerdex.storage.text;

import java.text.Normalizer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Splits text into words, the same way for documents and queries. A word is a run of Unicode letters and digits.
 * Identifiers joined by {@code _ . - :} or {@code ::} between letters/digits ({@code min_wal_size},
 * {@code os.path.join}, {@code pg_dump}) are emitted whole and also in their parts, all at the position of their
 * first part, so both {@code pg_dump} and {@code pg dump} find the page. Han ideographs and kana are words of one
 * character each (CJK text has no spaces; a phrase of them still matches), as Lucene's StandardTokenizer does.
 */
public final class Tokenizer {
    public static final int MAX_WORD_LENGTH = 64;

    /** A word and its position (count of plain parts before it). */
    public record Token(String word, int position, boolean compound) {}

    private Tokenizer() {}

    public static String normalize(String s) {
        return Normalizer.normalize(s, Normalizer.Form.NFKC).toLowerCase(Locale.ROOT);
    }

    private static boolean isWordChar(int cp) {
        return Character.isLetterOrDigit(cp) || Character.getType(cp) == Character.NON_SPACING_MARK;
    }

    /** Han, Hiragana and Katakana: scripts written without spaces between words. */
    static boolean isIdeographic(int cp) {
        if (cp < 0x2E80) return false;
        Character.UnicodeScript script = Character.UnicodeScript.of(cp);
        return script == Character.UnicodeScript.HAN || script == Character.UnicodeScript.HIRAGANA
                || script == Character.UnicodeScript.KATAKANA;
    }

    private static boolean isPartChar(int cp) {
        return isWordChar(cp) && !isIdeographic(cp);
    }

    private static boolean isJoiner(char c) {
        return c == '_' || c == '.' || c == '-' || c == ':';
    }

    /** Tokens of {@code text}; positions start at {@code firstPosition}. */
    public static List<Token> tokens(String text, int firstPosition) {
        List<Token> out = new ArrayList<>();
        String s = normalize(text);
        int n = s.length();
        int i = 0;
        int position = firstPosition;
        List<String> parts = new ArrayList<>();
        while (i < n) {
            int cp = s.codePointAt(i);
            if (!isWordChar(cp)) {
                i += Character.charCount(cp);
                continue;
            }
            if (isIdeographic(cp)) {
                out.add(new Token(s.substring(i, i + Character.charCount(cp)), position++, false));
                i += Character.charCount(cp);
                continue;
            }
            // read a compound: part (joiner+ part)*
            int compoundStart = i;
            parts.clear();
            int compoundEnd;
            while (true) {
                int partStart = i;
                while (i < n && isPartChar(s.codePointAt(i))) i += Character.charCount(s.codePointAt(i));
                parts.add(s.substring(partStart, i));
                compoundEnd = i;
                int j = i;
                while (j < n && j - i < 2 && isJoiner(s.charAt(j))) j++;
                if (j > i && j < n && isPartChar(s.codePointAt(j))) {
                    i = j;
                } else {
                    break;
                }
            }
            int start = position;
            for (String part : parts) {
                if (part.length() <= MAX_WORD_LENGTH) out.add(new Token(part, position, false));
                position++;
            }
            if (parts.size() > 1) {
                String compound = s.substring(compoundStart, compoundEnd);
                if (compound.length() <= MAX_WORD_LENGTH) out.add(new Token(compound, start, true));
            }
        }
        return out;
    }

    /** Just the words, in order, parts and compounds alike. */
    public static List<String> words(String text) {
        List<String> out = new ArrayList<>();
        for (Token t : tokens(text, 0)) out.add(t.word());
        return out;
    }

    /** The plain words (no compounds), in order: what a phrase is matched against. */
    public static List<String> plainWords(String text) {
        List<String> out = new ArrayList<>();
        for (Token t : tokens(text, 0)) if (!t.compound()) out.add(t.word());
        return out;
    }
}
