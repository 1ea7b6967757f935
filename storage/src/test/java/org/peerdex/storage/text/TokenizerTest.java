package org.peerdex.storage.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.peerdex.storage.text.Tokenizer.Token;

class TokenizerTest {

    @Test
    void identifiersYieldTheWholeTokenAndItsParts() {
        assertEquals(List.of("min", "wal", "size", "min_wal_size"), Tokenizer.words("min_wal_size"));
        assertEquals(List.of("os", "path", "join", "os.path.join"), Tokenizer.words("os.path.join"));
        assertEquals(List.of("pg", "dump", "pg_dump"), Tokenizer.words("pg_dump"));
        assertEquals(List.of("std", "vector", "std::vector"), Tokenizer.words("std::vector"));
        assertEquals(List.of("write", "ahead", "write-ahead"), Tokenizer.words("Write-Ahead"));
    }

    @Test
    void aCompoundSitsAtThePositionOfItsFirstPartAndPartsCountAsWords() {
        List<Token> t = Tokenizer.tokens("run pg_dump now", 0);
        assertEquals(List.of(new Token("run", 0, false), new Token("pg", 1, false), new Token("dump", 2, false),
                new Token("pg_dump", 1, true), new Token("now", 3, false)), t);
        assertEquals(List.of("run", "pg", "dump", "now"), Tokenizer.plainWords("run pg_dump now"));
        assertEquals(10, Tokenizer.tokens("word", 10).get(0).position());
    }

    @Test
    void punctuationAtTheEndOfAnIdentifierIsNotPartOfIt() {
        assertEquals(List.of("use", "pg", "dump", "pg_dump"), Tokenizer.words("Use pg_dump."));
        assertEquals(List.of("end", "next"), Tokenizer.words("end. next"));
        assertEquals(List.of("a", "b"), Tokenizer.words("a_ b"));
        assertEquals(List.of("x"), Tokenizer.words("__x__"));
    }

    @Test
    void caseIsFoldedAndCompatibilityFormsNormalized() {
        assertEquals(List.of("postgresql", "wal"), Tokenizer.words("PostgreSQL WAL"));
        // NFKC: the ligature "ﬁ" becomes "fi", full-width letters become ASCII
        assertEquals(List.of("file", "abc"), Tokenizer.words("ﬁle ＡＢＣ"));
        // a decomposed é (e + combining accent) is the same word as the precomposed one
        assertEquals(Tokenizer.words("café"), Tokenizer.words("cafe\u0301"));
    }

    @Test
    void unicodeLettersOfEveryScriptAreWords() {
        assertEquals(List.of("größe", "straße", "café"), Tokenizer.words("Größe Straße Café"));
        assertEquals(List.of("журнал", "предзаписи"), Tokenizer.words("Журнал предзаписи."));
        assertEquals(List.of("ελληνικά"), Tokenizer.words("Ελληνικά"));
    }

    @Test
    void ideographsAreWordsOfOneCharacter() {
        // CJK text has no spaces: each ideograph and kana is its own word, the same way for pages and queries,
        // so a phrase of them matches; one long run would otherwise pass the word length bound and be lost
        assertEquals(List.of("预", "写", "式", "日", "志"), Tokenizer.words("预写式日志"));
        assertEquals(List.of("日", "本", "語", "の", "テ", "キ", "ス", "ト"), Tokenizer.words("日本語のテキスト"));
        List<Token> t = Tokenizer.tokens("wal 日志", 0);
        assertEquals(new Token("志", 2, false), t.get(2));
        String longSentence = "日本語のテキストも索引されます".repeat(10);
        assertEquals(150, Tokenizer.words(longSentence).size());
    }

    @Test
    void digitsAreWordsAndVersionsAreCompounds() {
        assertEquals(List.of("15", "4", "15.4"), Tokenizer.words("15.4"));
        assertEquals(List.of("2023", "08", "10", "2023-08-10"), Tokenizer.words("2023-08-10"));
        assertEquals(List.of("80", "mb"), Tokenizer.words("80 MB"));
        assertEquals(List.of("٣"), Tokenizer.words("٣"));
    }

    @Test
    void overlongRunsAreDroppedButStillTakeAPosition() {
        String blob = "a".repeat(Tokenizer.MAX_WORD_LENGTH + 1);
        List<Token> t = Tokenizer.tokens("before " + blob + " after", 0);
        assertEquals(List.of(new Token("before", 0, false), new Token("after", 2, false)), t);
        assertTrue(Tokenizer.words("x".repeat(Tokenizer.MAX_WORD_LENGTH)).size() == 1);
    }

    @Test
    void textWithoutWordsHasNoTokens() {
        assertEquals(List.of(), Tokenizer.words(""));
        assertEquals(List.of(), Tokenizer.words(" -- ... ;; "));
        assertFalse(Tokenizer.words("\u00a0\u2003x").isEmpty());
    }
}
