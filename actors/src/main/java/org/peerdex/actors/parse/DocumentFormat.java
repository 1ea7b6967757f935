package org.peerdex.actors.parse;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The office, e-book and RTF formats read through Apache Tika ({@link TikaDocumentParser}), and how a fetched or
 * local document is recognised as one: its Content-Type first, then its file extension when the header says
 * nothing specific, then its first bytes (the OLE2 and ZIP signatures, the "mimetype" entry that ODF and EPUB
 * store first and uncompressed, RTF's "{\rtf").
 */
public enum DocumentFormat {
    DOC("application/msword", "doc", "Word 97-2003", Container.OLE2),
    XLS("application/vnd.ms-excel", "xls", "Excel 97-2003", Container.OLE2),
    PPT("application/vnd.ms-powerpoint", "ppt", "PowerPoint 97-2003", Container.OLE2),
    /** An OLE2 file whose header and name do not say which Office program wrote it. */
    OLE2("application/x-tika-msoffice", "", "Office 97-2003", Container.OLE2),
    DOCX("application/vnd.openxmlformats-officedocument.wordprocessingml.document", "docx", "DOCX", Container.OOXML),
    XLSX("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "xlsx", "XLSX", Container.OOXML),
    PPTX("application/vnd.openxmlformats-officedocument.presentationml.presentation", "pptx", "PPTX", Container.OOXML),
    /** A ZIP with [Content_Types].xml whose header and name do not say which Office program wrote it. */
    OOXML("application/x-tika-ooxml", "", "Office Open XML", Container.OOXML),
    ODT("application/vnd.oasis.opendocument.text", "odt", "OpenDocument text", Container.ODF),
    ODS("application/vnd.oasis.opendocument.spreadsheet", "ods", "OpenDocument spreadsheet", Container.ODF),
    ODP("application/vnd.oasis.opendocument.presentation", "odp", "OpenDocument presentation", Container.ODF),
    EPUB("application/epub+zip", "epub", "EPUB", Container.EPUB),
    RTF("application/rtf", "rtf", "RTF", Container.RTF);

    /** Which Tika parser reads the format. */
    public enum Container { OLE2, OOXML, ODF, EPUB, RTF }

    private static final byte[] OLE2_MAGIC = {(byte) 0xD0, (byte) 0xCF, 0x11, (byte) 0xE0, (byte) 0xA1, (byte) 0xB1,
            0x1A, (byte) 0xE1};
    /** Headers that name no type of their own: the extension and the bytes decide. */
    private static final Set<String> GENERIC = Set.of("", "application/octet-stream", "binary/octet-stream",
            "application/download", "application/force-download", "application/x-download", "application/zip",
            "application/x-zip", "application/x-zip-compressed", "application/unknown", "unknown/unknown");
    /** Other names servers give these formats. */
    private static final Map<String, DocumentFormat> ALIASES = Map.ofEntries(
            Map.entry("application/vnd.ms-word", DOC), Map.entry("application/x-msword", DOC),
            Map.entry("application/doc", DOC), Map.entry("application/msexcel", XLS),
            Map.entry("application/x-msexcel", XLS), Map.entry("application/x-excel", XLS),
            Map.entry("application/mspowerpoint", PPT), Map.entry("application/x-mspowerpoint", PPT),
            Map.entry("text/rtf", RTF), Map.entry("application/x-rtf", RTF), Map.entry("text/richtext", RTF));

    private final String mimeType;
    private final String extension;
    private final String label;
    private final Container container;

    DocumentFormat(String mimeType, String extension, String label, Container container) {
        this.mimeType = mimeType;
        this.extension = extension;
        this.label = label;
        this.container = container;
    }

    /** The registered media type. */
    public String mimeType() {
        return mimeType;
    }

    /** A name for messages ("DOCX", "OpenDocument text"). */
    public String label() {
        return label;
    }

    public Container container() {
        return container;
    }

    /**
     * The format of a document, or empty when it is none of these (HTML, text, PDF, images, ...).
     *
     * @param url         where it came from (its path's extension counts when the header is generic)
     * @param contentType the Content-Type header or the probed type of a file, may be null
     */
    public static Optional<DocumentFormat> detect(String url, String contentType, byte[] body) {
        String mime = ContentSniffer.mimeType(contentType);
        for (DocumentFormat f : values()) if (f.mimeType.equals(mime)) return Optional.of(f);
        if (ALIASES.containsKey(mime)) return Optional.of(ALIASES.get(mime));
        if (!GENERIC.contains(mime)) return Optional.empty();
        Optional<DocumentFormat> byName = byExtension(url);
        if (byName.isPresent()) return byName;
        return sniff(body);
    }

    /** The format its path's extension names, if any. */
    static Optional<DocumentFormat> byExtension(String url) {
        String path;
        try {
            path = URI.create(url).getPath();
        } catch (IllegalArgumentException e) {
            path = url;
        }
        if (path == null) return Optional.empty();
        int dot = path.lastIndexOf('.');
        if (dot < 0 || dot < path.lastIndexOf('/')) return Optional.empty();
        String ext = path.substring(dot + 1).toLowerCase(Locale.ROOT);
        for (DocumentFormat f : values()) if (!f.extension.isEmpty() && f.extension.equals(ext)) return Optional.of(f);
        return Optional.empty();
    }

    /** The format its first bytes show, if any. */
    static Optional<DocumentFormat> sniff(byte[] body) {
        if (startsWith(body, OLE2_MAGIC)) return Optional.of(OLE2);
        if (startsWith(body, "{\\rtf".getBytes(StandardCharsets.US_ASCII))) return Optional.of(RTF);
        if (!startsWith(body, new byte[] {'P', 'K', 3, 4})) return Optional.empty();
        // a local file header: name length at 26, extra length at 28, name at 30, then the data
        if (body.length < 30) return Optional.empty();
        int nameLength = (body[26] & 0xff) | (body[27] & 0xff) << 8;
        int extraLength = (body[28] & 0xff) | (body[29] & 0xff) << 8;
        if (body.length < 30 + nameLength) return Optional.empty();
        String name = new String(body, 30, nameLength, StandardCharsets.UTF_8);
        if (name.equals("[Content_Types].xml")) return Optional.of(OOXML);
        int method = (body[8] & 0xff) | (body[9] & 0xff) << 8;
        if (!name.equals("mimetype") || method != 0) return Optional.empty();
        int start = 30 + nameLength + extraLength;
        int size = (body[18] & 0xff) | (body[19] & 0xff) << 8 | (body[20] & 0xff) << 16 | (body[21] & 0xff) << 24;
        if (size <= 0 || size > 100 || start + size > body.length) return Optional.empty();
        String type = new String(body, start, size, StandardCharsets.US_ASCII).strip();
        for (DocumentFormat f : values()) if (f.mimeType.equals(type)) return Optional.of(f);
        return Optional.empty();
    }

    private static boolean startsWith(byte[] body, byte[] magic) {
        if (body.length < magic.length) return false;
        for (int i = 0; i < magic.length; i++) if (body[i] != magic[i]) return false;
        return true;
    }
}
