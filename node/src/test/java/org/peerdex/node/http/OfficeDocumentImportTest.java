package org.peerdex.node.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.peerdex.actors.parse.DocumentFormat;
import org.peerdex.actors.parse.OfficeDocuments;

/**
 * Office documents, EPUB and RTF (made by POI, as ZIP packages, as RTF text, and a LibreOffice .doc) imported into
 * a real peer by URL and from disk, their words found by /api/search; a malformed file of each format is a clear
 * import error and the import goes on.
 */
class OfficeDocumentImportTest {
    static ImportTestPeer peer;
    /** path on the test site or file name -> the word only that document holds */
    static final Map<String, String> WORDS = new LinkedHashMap<>();
    static final Map<String, byte[]> BODIES = new LinkedHashMap<>();
    static final Map<String, DocumentFormat> FORMATS = new LinkedHashMap<>();

    static void add(String name, DocumentFormat format, String word, byte[] body) {
        WORDS.put(name, word);
        BODIES.put(name, body);
        FORMATS.put(name, format);
    }

    @BeforeAll
    static void start() throws Exception {
        peer = new ImportTestPeer("");
        add("handbook.doc", DocumentFormat.DOC, "bramblefinch", OfficeDocuments.doc());
        add("design.docx", DocumentFormat.DOCX, "kelpwright", OfficeDocuments.docx("The Kelpwright Architecture",
                "Kelpwright splits buffers into ropes.", "https://kelp.example.org/design"));
        add("inventory.xlsx", DocumentFormat.XLSX, "tarnfield", OfficeDocuments.xlsx("Glacier Inventory",
                List.of("skerry tarnfield moraine")));
        add("old.xls", DocumentFormat.XLS, "hollowmere", OfficeDocuments.xls("Old Inventory", "hollowmere drumlin"));
        add("kickoff.pptx", DocumentFormat.PPTX, "snowdrift", OfficeDocuments.pptx("Kickoff",
                List.of("The snowdrift planner ships in spring")));
        add("legacy.ppt", DocumentFormat.PPT, "frostbind", OfficeDocuments.ppt("Legacy", "The frostbind installer"));
        add("notes.odt", DocumentFormat.ODT, "walrusfold", OfficeDocuments.odt("Walrusfold Notes",
                "The walrusfold option keeps tabs in a skiplist.", "https://walrus.example.org/"));
        add("narwhal.epub", DocumentFormat.EPUB, "glacierfox", OfficeDocuments.epub("The Narwhal Scheduler",
                "Chapter one meets the narwhal.", "Chapter two tames the glacierfox.", "https://narwhal.example.org/"));
        add("minutes.rtf", DocumentFormat.RTF, "quillstroke", OfficeDocuments.rtf("Quillstroke Minutes",
                "The quillstroke debounce was merged.", "https://quill.example.org/"));
        for (String name : BODIES.keySet()) {
            peer.serve("/docs/" + name, FORMATS.get(name).mimeType(), BODIES.get(name));
            peer.serve("/broken/" + name, FORMATS.get(name).mimeType(), OfficeDocuments.malformed(BODIES.get(name)));
        }
    }

    @AfterAll
    static void stop() throws Exception {
        if (peer != null) peer.close();
    }

    @Test
    void eachFormatImportedByUrlIsFoundByItsWords() throws Exception {
        for (String name : WORDS.keySet()) {
            JsonNode p = peer.awaitEnd(peer.startImport("document", Map.of("url", peer.siteBase + "/docs/" + name)));
            assertEquals("finished", p.get("state").asText(), name + ": " + p);
            assertEquals(1, p.get("imported").asInt(), name + ": " + p);
            List<String> found = peer.urls(WORDS.get(name));
            assertTrue(found.contains(peer.siteBase + "/docs/" + name), name + ": " + found);
        }
        JsonNode docx = peer.search("kelpwright").get("results").get(0);
        assertEquals("The Kelpwright Architecture", docx.get("title").asText(), docx.toString());
    }

    @Test
    void aFolderOfEachFormatIsImportedByExtensionAndTheBrokenFilesAreCountedAsErrors() throws Exception {
        Path dir = Files.createTempDirectory(peer.dataDir, "office");
        for (String name : BODIES.keySet()) {
            Files.write(dir.resolve(name), BODIES.get(name));
            Files.write(dir.resolve("broken-" + name), OfficeDocuments.malformed(BODIES.get(name)));
        }
        JsonNode p = peer.awaitEnd(peer.startImport("document", Map.of("path", dir.toString(),
                "baseUrl", "http://files.fjord.test/office/")));
        assertEquals("finished", p.get("state").asText(), p.toString());
        assertEquals(BODIES.size(), p.get("imported").asInt(), p.toString());
        assertEquals(BODIES.size(), p.get("errors").asInt(), "each broken file: " + p);
        for (String name : WORDS.keySet()) {
            assertTrue(peer.urls(WORDS.get(name)).contains("http://files.fjord.test/office/" + name),
                    name + " " + peer.urls(WORDS.get(name)));
        }
    }

    @Test
    void aMalformedFileOfEachFormatIsAClearErrorAndIndexesNothing() throws Exception {
        List<String> messages = new ArrayList<>();
        for (String name : BODIES.keySet()) {
            String url = peer.siteBase + "/broken/" + name;
            JsonNode p = peer.awaitEnd(peer.startImport("document", Map.of("url", url)));
            assertEquals(1, p.get("errors").asInt(), name + ": " + p);
            assertEquals(0, p.get("imported").asInt(), name + ": " + p);
            String error = p.get("recentErrors").get(0).asText();
            assertTrue(error.contains(FORMATS.get(name).label()) && error.contains(url), error);
            messages.add(error);
        }
        System.out.println(String.join("\n", messages));
    }
}
