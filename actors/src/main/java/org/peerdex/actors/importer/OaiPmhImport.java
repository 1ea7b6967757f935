package org.peerdex.actors.importer;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * OAI-PMH 2.0 harvesting: {@code ListRecords} with {@code metadataPrefix=oai_dc}, following
 * {@code resumptionToken}s to the end; each record (Dublin Core) becomes a document at its first http(s)
 * {@code dc:identifier}, or at its GetRecord URL. Incremental: a harvest that ran to its end stores the
 * repository's {@code responseDate}, and the next harvest of the same base URL asks only {@code from} there.
 */
public final class OaiPmhImport {
    static final String NS = "http://www.openarchives.org/OAI/2.0/";
    static final String DC = "http://purl.org/dc/elements/1.1/";
    static final long MAX_PAGE_BYTES = 32L << 20;
    static final int MAX_PAGES = 100_000;
    static final String FROM_SETTING = "import.oai-pmh.from.";

    private OaiPmhImport() {}

    /** One record. @param dc Dublin Core element name → values, in document order */
    public record OaiRecord(String identifier, String datestamp, boolean deleted, Map<String, List<String>> dc) {
        public List<String> values(String element) {
            return dc.getOrDefault(element, List.of());
        }
    }

    /** One ListRecords response: its records, the next resumption token (empty at the end) and its date. */
    public record Page(String responseDate, List<OaiRecord> records, Optional<String> resumptionToken,
                       Optional<String> completeListSize) {}

    /** Thrown for an OAI-PMH {@code <error>} answer other than noRecordsMatch. */
    public static final class OaiException extends IOException {
        public OaiException(String message) {
            super(message);
        }
    }

    /** Parses one ListRecords response. @throws IOException for malformed XML or an OAI-PMH error */
    public static Page parse(byte[] xml) throws IOException {
        List<OaiRecord> records = new ArrayList<>();
        String responseDate = "";
        String token = null;
        String size = null;
        boolean sawRoot = false;
        try {
            XMLStreamReader r = Xml.safeFactory().createXMLStreamReader(new ByteArrayInputStream(xml));
            String identifier = null;
            String datestamp = "";
            boolean deleted = false;
            Map<String, List<String>> dc = null;
            while (r.hasNext()) {
                int ev = r.next();
                if (ev != XMLStreamConstants.START_ELEMENT) {
                    if (ev == XMLStreamConstants.END_ELEMENT && NS.equals(r.getNamespaceURI())
                            && r.getLocalName().equals("record") && identifier != null) {
                        records.add(new OaiRecord(identifier, datestamp, deleted, dc == null ? Map.of() : dc));
                        identifier = null;
                        datestamp = "";
                        deleted = false;
                        dc = null;
                    }
                    continue;
                }
                String ns = r.getNamespaceURI();
                String name = r.getLocalName();
                if (NS.equals(ns)) {
                    switch (name) {
                        case "OAI-PMH" -> sawRoot = true;
                        case "responseDate" -> responseDate = r.getElementText().strip();
                        case "error" -> {
                            String code = r.getAttributeValue(null, "code");
                            String msg = r.getElementText().strip();
                            if ("noRecordsMatch".equals(code)) {
                                return new Page(responseDate, List.of(), Optional.empty(), Optional.of("0"));
                            }
                            throw new OaiException("the repository answered OAI-PMH error " + code
                                    + (msg.isEmpty() ? "" : ": " + msg));
                        }
                        case "record" -> dc = new LinkedHashMap<>();
                        case "header" -> deleted = "deleted".equals(r.getAttributeValue(null, "status"));
                        case "identifier" -> identifier = r.getElementText().strip();
                        case "datestamp" -> datestamp = r.getElementText().strip();
                        case "resumptionToken" -> {
                            size = r.getAttributeValue(null, "completeListSize");
                            String t = r.getElementText().strip();
                            token = t.isEmpty() ? null : t;
                        }
                        default -> { }
                    }
                } else if (DC.equals(ns) && dc != null) {
                    String v = r.getElementText().strip();
                    if (!v.isEmpty()) {
                        List<String> list = dc.computeIfAbsent(name, k -> new ArrayList<>());
                        if (list.size() < 100) list.add(v.length() > 20_000 ? v.substring(0, 20_000) : v);
                    }
                }
            }
        } catch (XMLStreamException e) {
            throw new IOException("malformed OAI-PMH response, " + Xml.where(e), e);
        }
        if (!sawRoot) throw new IOException("not an OAI-PMH response (no OAI-PMH root element in namespace " + NS + ")");
        return new Page(responseDate, records, Optional.ofNullable(token), Optional.ofNullable(size));
    }

    /** The first ListRecords request of a harvest. */
    public static String firstRequest(String baseUrl, String from, String set) {
        StringBuilder b = new StringBuilder(baseUrl).append(baseUrl.contains("?") ? "&" : "?")
                .append("verb=ListRecords&metadataPrefix=oai_dc");
        if (from != null && !from.isBlank()) b.append("&from=").append(enc(from));
        if (set != null && !set.isBlank()) b.append("&set=").append(enc(set));
        return b.toString();
    }

    /** A follow-up request: only the verb and the token, as the protocol demands. */
    public static String resumeRequest(String baseUrl, String token) {
        return baseUrl + (baseUrl.contains("?") ? "&" : "?") + "verb=ListRecords&resumptionToken=" + enc(token);
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    /** The document of a record, or empty for a deleted record. */
    public static Optional<ImportedDocument> document(String baseUrl, OaiRecord rec) {
        if (rec.deleted()) return Optional.empty();
        String url = rec.values("identifier").stream()
                .filter(v -> v.startsWith("http://") || v.startsWith("https://")).findFirst()
                .orElse(baseUrl + (baseUrl.contains("?") ? "&" : "?") + "verb=GetRecord&metadataPrefix=oai_dc&identifier="
                        + enc(rec.identifier()));
        String title = String.join(" ", rec.values("title"));
        String description = String.join(" ", rec.values("description"));
        StringBuilder body = new StringBuilder(description);
        for (String el : List.of("creator", "contributor", "subject", "publisher", "source", "coverage", "type")) {
            for (String v : rec.values(el)) body.append(body.length() > 0 ? "\n" : "").append(v);
        }
        String lang = rec.values("language").stream().findFirst().map(l -> l.length() >= 2
                ? l.substring(0, 2).toLowerCase(Locale.ROOT) : "").orElse("");
        if (!Set.of("en", "de", "fr", "es", "it", "nl", "pt", "ru", "zh", "ja", "pl", "sv").contains(lang)) lang = "";
        long date = rec.values("date").stream().map(OaiPmhImport::date).filter(d -> d != 0).findFirst()
                .orElse(date(rec.datestamp()));
        return Optional.of(new ImportedDocument(url, title, description.length() > 500
                ? description.substring(0, 500) : description, String.join("; ", rec.values("creator")),
                rec.values("subject"), List.of(), List.of(), body.toString(), lang, "text/plain", 't', date,
                body.length(), List.of()));
    }

    static long date(String s) {
        if (s == null || s.isBlank()) return 0;
        try {
            if (s.length() >= 20) return Instant.parse(s).toEpochMilli();
            if (s.length() >= 10) return LocalDate.parse(s.substring(0, 10)).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
            if (s.length() == 4) return LocalDate.of(Integer.parseInt(s), 1, 1).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
        } catch (RuntimeException e) {
            return 0;
        }
        return 0;
    }

    /**
     * Harvests a repository. {@code from} (a date or UTC datetime) overrides the remembered date of the last
     * complete harvest; {@code set} restricts to one OAI set.
     */
    public static ImportSource source(String baseUrl, PageFetcher fetcher, String from, String set) {
        return ctx -> {
            String since = from != null && !from.isBlank() ? from
                    : ctx.storage().setting(FROM_SETTING + baseUrl).orElse(null);
            if (since != null) ctx.detail("from", since);
            String request = firstRequest(baseUrl, since, set);
            String firstDate = null;
            Set<String> seenTokens = new HashSet<>();
            for (int pages = 0; pages < MAX_PAGES; pages++) {
                if (ctx.stopped()) return;
                Page page = parse(new ImportInput.Url(request, fetcher).read(MAX_PAGE_BYTES));
                if (firstDate == null) firstDate = page.responseDate();
                ctx.count("pages");
                page.completeListSize().ifPresent(s -> ctx.detail("completeListSize", s));
                for (OaiRecord rec : page.records()) {
                    if (ctx.stopped()) return;
                    Optional<ImportedDocument> d = document(baseUrl, rec);
                    if (d.isEmpty()) ctx.skipped("deleted record " + rec.identifier());
                    else ctx.document(d.get());
                }
                ctx.flush();
                if (page.resumptionToken().isEmpty()) {
                    // the whole list was read: the next harvest needs only what changed since this one began
                    if (firstDate != null && !firstDate.isEmpty()) {
                        ctx.storage().putSetting(FROM_SETTING + baseUrl, firstDate.length() >= 10
                                ? firstDate.substring(0, 10) : firstDate);
                    }
                    return;
                }
                String token = page.resumptionToken().get();
                if (!seenTokens.add(token)) throw new IOException("the repository repeated resumptionToken " + token);
                ctx.count("resumptionTokens");
                request = resumeRequest(baseUrl, token);
            }
            throw new IOException("stopped after " + MAX_PAGES + " ListRecords pages");
        };
    }

    /** Imports one ListRecords response saved as a file (no resumption). */
    public static ImportSource fromFile(ImportInput input, String baseUrl) {
        return ctx -> {
            Page page = parse(input.read(MAX_PAGE_BYTES));
            for (OaiRecord rec : page.records()) {
                if (ctx.stopped()) return;
                Optional<ImportedDocument> d = document(baseUrl, rec);
                if (d.isEmpty()) ctx.skipped("deleted record " + rec.identifier());
                else ctx.document(d.get());
            }
        };
    }
}
