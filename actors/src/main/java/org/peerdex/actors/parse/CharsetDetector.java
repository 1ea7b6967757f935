package org.peerdex.actors.parse;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds the charset of a fetched body, in the order browsers use: byte-order mark, the Content-Type header, a
 * {@code <meta charset>} (or http-equiv, or an XML declaration) in the first 4 KiB, then UTF-8 if the bytes are
 * valid UTF-8, else windows-1252 (what browsers assume for ISO-8859-1 labels too).
 */
public final class CharsetDetector {
    private static final int SNIFF_BYTES = 4096;
    private static final Pattern HEADER_CHARSET = Pattern.compile("(?i)charset\\s*=\\s*[\"']?([\\w.:-]+)");
    private static final Pattern META_CHARSET = Pattern.compile(
            "(?i)<meta[^>]+charset\\s*=\\s*[\"']?\\s*([\\w.:-]+)");
    private static final Pattern XML_ENCODING = Pattern.compile("(?i)<\\?xml[^>]+encoding\\s*=\\s*[\"']([\\w.:-]+)");

    /** The charset and where it came from (bom, header, meta, utf8-valid, fallback). */
    public record Detected(Charset charset, String source, int bomLength) {}

    private CharsetDetector() {}

    public static Detected detect(byte[] body, String contentType) {
        if (startsWith(body, 0xEF, 0xBB, 0xBF)) return new Detected(StandardCharsets.UTF_8, "bom", 3);
        if (startsWith(body, 0xFE, 0xFF)) return new Detected(StandardCharsets.UTF_16BE, "bom", 2);
        if (startsWith(body, 0xFF, 0xFE)) return new Detected(StandardCharsets.UTF_16LE, "bom", 2);
        Optional<Charset> header = fromHeader(contentType);
        if (header.isPresent()) return new Detected(header.get(), "header", 0);
        String head = new String(body, 0, Math.min(body.length, SNIFF_BYTES), StandardCharsets.ISO_8859_1);
        for (Pattern p : new Pattern[] {META_CHARSET, XML_ENCODING}) {
            Matcher m = p.matcher(head);
            if (m.find()) {
                Optional<Charset> cs = lookup(m.group(1));
                // a page that says UTF-16 in ASCII-compatible bytes is lying (HTML spec: treat as UTF-8)
                if (cs.isPresent() && !cs.get().name().startsWith("UTF-16")) return new Detected(cs.get(), "meta", 0);
            }
        }
        if (isValidUtf8(body)) return new Detected(StandardCharsets.UTF_8, "utf8-valid", 0);
        return new Detected(Charset.forName("windows-1252"), "fallback", 0);
    }

    /** Decodes with the detected charset; malformed bytes become U+FFFD. */
    public static String decode(byte[] body, Detected d) {
        return new String(body, d.bomLength(), body.length - d.bomLength(), d.charset());
    }

    public static Optional<Charset> fromHeader(String contentType) {
        if (contentType == null) return Optional.empty();
        Matcher m = HEADER_CHARSET.matcher(contentType);
        return m.find() ? lookup(m.group(1)) : Optional.empty();
    }

    static Optional<Charset> lookup(String name) {
        String n = name.trim().toLowerCase(Locale.ROOT);
        // browsers decode Latin-1 and ASCII labels as windows-1252 (WHATWG Encoding standard)
        if (n.equals("iso-8859-1") || n.equals("latin1") || n.equals("us-ascii") || n.equals("ascii")) {
            n = "windows-1252";
        }
        try {
            return Charset.isSupported(n) ? Optional.of(Charset.forName(n)) : Optional.empty();
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    static boolean isValidUtf8(byte[] body) {
        // a body cut by the size cap may end inside a sequence: ignore the last 3 bytes
        int len = Math.max(0, body.length - 3);
        try {
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(body, 0, len));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    private static boolean startsWith(byte[] b, int... prefix) {
        if (b.length < prefix.length) return false;
        for (int i = 0; i < prefix.length; i++) if ((b[i] & 0xff) != prefix[i]) return false;
        return true;
    }
}
