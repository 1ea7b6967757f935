package org.peerdex.actors.dht.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.peerdex.actors.dht.TestCorpus;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.storage.meta.UrlMetadata;

/** What a holder refuses of the metadata records another peer sends. */
class PostingValidatorTest {
    private final UrlMetadata record = TestCorpus.documents(1, 3).get(0).metadata();

    @Test
    void aRecordNamesItsHolderByPeerIdOrNotAtAll() {
        assertEquals(Optional.empty(), PostingValidator.problem(ShardOwner.withHolder(record, null)));
        String crawler = PeerId.random(new Random(5)).value();
        assertEquals(Optional.empty(), PostingValidator.problem(ShardOwner.withHolder(record, crawler)));
        for (String bad : List.of("", "not a peer", crawler + crawler, crawler.substring(1), "<b>" + crawler.substring(3))) {
            Optional<String> problem = PostingValidator.problem(ShardOwner.withHolder(record, bad));
            assertTrue(problem.isPresent() && problem.get().contains("not a peer id"), bad + ": " + problem);
            assertEquals(problem, PostingValidator.firstProblem(List.of(), List.of(ShardOwner.withHolder(record, bad))));
        }
    }

    @Test
    void languageCodesAreTwoOrThreeLettersWithAnOptionalShortSubtag() {
        java.util.regex.Pattern reference = java.util.regex.Pattern.compile("[a-z]{2,3}(-[A-Za-z0-9]{1,4})?");
        List<String> samples = List.of("en", "de", "deu", "pt-BR", "zh-Hant", "sr-419", "x", "engl", "EN", "en-",
                "en-toolong", "en_US", "en-B-R", "e1", "en-é", "-en", "en--a", "aa-1234", "aa-12345", " en");
        for (String s : samples) {
            assertEquals(reference.matcher(s).matches(), PostingValidator.isLanguageCode(s), s);
        }
        // and every string of up to 3 characters over an alphabet that covers each class the check tells apart
        String alphabet = "aZ9-_";
        java.util.ArrayList<String> all = new java.util.ArrayList<>(List.of(""));
        for (int len = 0; len < 6; len++) {
            java.util.ArrayList<String> next = new java.util.ArrayList<>();
            for (String s : all) {
                assertEquals(reference.matcher(s).matches(), PostingValidator.isLanguageCode(s), "'" + s + "'");
                if (s.length() == len) for (char c : alphabet.toCharArray()) next.add(s + c);
            }
            all = next;
        }
    }
}
